// Worker entrypoint of the integration-workflow lane: the orchestrator runs the compiled file as
// `node dist/agents/integration-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { planIntegrationWorkflow } from './integration-workflow.js';

await runAgentMain(defineLane('integration-workflow', planIntegrationWorkflow));
