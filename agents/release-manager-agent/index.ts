// Worker entrypoint of the release-readiness lane: the orchestrator runs the compiled file as
// `node dist/agents/release-manager-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { releaseReadiness } from './release-readiness.js';

await runAgentMain(defineLane('release-readiness', releaseReadiness));
