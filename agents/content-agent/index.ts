// Worker entrypoint of the content-generate lane: the orchestrator runs the compiled file as
// `node dist/agents/content-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { generateWithModel } from './provider-draft.js';

await runAgentMain(defineLane('content-generate', generateWithModel));
