// Worker entrypoint of the data-extraction lane: the orchestrator runs the compiled file as
// `node dist/agents/data-extraction-agent/index.js --payload <file>`.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { extractData } from './extract.js';

await runAgentMain(extractData);
