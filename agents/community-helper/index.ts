// Worker entrypoint of the community-response lane: the orchestrator runs the compiled file as
// `node dist/agents/community-helper/index.js --payload <file>`. The resident service is service.ts.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { communityResponse } from './community-response.js';

await runAgentMain(defineLane('community-response', communityResponse));
