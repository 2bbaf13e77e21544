// Worker entrypoint of the skill-audit lane: the orchestrator runs the compiled file as
// `node dist/agents/skill-audit-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { skillAudit } from './skill-audit.js';

// skillAudit's second parameter is the skill registry (tests pass their own), not the lane context.
await runAgentMain(defineLane('skill-audit', (payload) => skillAudit(payload)));
