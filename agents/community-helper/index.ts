// Worker entrypoint of the community-response lane: the orchestrator runs the compiled file as
// `node dist/agents/community-helper/index.js --payload <file>`. The resident service is service.ts.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { communityResponse } from './community-response.js';

await runAgentMain((payload: Record<string, unknown>, context) => communityResponse(payload, context));
