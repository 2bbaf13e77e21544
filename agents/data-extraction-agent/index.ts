// Worker entrypoint of the data-extraction lane: the orchestrator runs the compiled file as
// `node dist/agents/data-extraction-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { extractData } from './extract.js';

await runAgentMain(defineLane('data-extraction', extractData));
