// Worker entrypoint of the summarize-content lane: the orchestrator runs the compiled file as
// `node dist/agents/summarization-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { summarizeWithModel } from './abstractive.js';

await runAgentMain(defineLane('summarize-content', summarizeWithModel));
