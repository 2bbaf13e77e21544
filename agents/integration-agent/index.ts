// Worker entrypoint of the integration-workflow lane.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { planIntegrationWorkflow } from './integration-workflow.js';

await runAgentMain(planIntegrationWorkflow);
