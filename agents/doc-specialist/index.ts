// Worker entrypoint of the drift-repair lane: the orchestrator runs the compiled file as
// `node dist/agents/doc-specialist/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { driftRepair } from './drift-repair.js';

await runAgentMain(defineLane('drift-repair', driftRepair));
