// Worker entrypoint of the drift-repair lane: the orchestrator runs the compiled file as
// `node dist/agents/doc-specialist/index.js --payload <file>`.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { driftRepair, type DriftRepairPayload } from './drift-repair.js';

await runAgentMain<DriftRepairPayload>((payload, context) => driftRepair(payload, context));
