// Worker entrypoint of the skill-audit lane: the orchestrator runs the compiled file as
// `node dist/agents/skill-audit-agent/index.js --payload <file>`.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { skillAudit } from './skill-audit.js';

await runAgentMain((payload: Record<string, unknown>) => skillAudit(payload));
