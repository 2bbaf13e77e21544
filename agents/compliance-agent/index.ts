// Worker entrypoint of the compliance-review lane: the orchestrator runs the compiled file as
// `node dist/agents/compliance-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { complianceReview } from './review.js';

await runAgentMain(defineLane('compliance-review', complianceReview));
