// Worker entrypoint of the normalize-data lane: the orchestrator runs the compiled file as
// `node dist/agents/normalization-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { normalizeData } from './normalize.js';

await runAgentMain(defineLane('normalize-data', normalizeData));
