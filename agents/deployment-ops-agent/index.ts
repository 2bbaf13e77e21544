// Worker entrypoint of the deployment-ops lane: the orchestrator runs the compiled file as
// `node dist/agents/deployment-ops-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { deploymentOps } from './deployment-ops.js';

await runAgentMain(defineLane('deployment-ops', deploymentOps));
