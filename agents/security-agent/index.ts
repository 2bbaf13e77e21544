// Worker entrypoint of the security-audit lane: the orchestrator runs the compiled file as
// `node dist/agents/security-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { securityAudit } from './audit.js';

await runAgentMain(defineLane('security-audit', securityAudit));
