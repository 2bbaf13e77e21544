// Worker entrypoint of the control-plane-brief lane: the orchestrator runs the compiled file as
// `node dist/agents/operations-analyst-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { controlPlaneBrief } from './control-plane-brief.js';

await runAgentMain(defineLane('control-plane-brief', controlPlaneBrief));
