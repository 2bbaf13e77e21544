// Worker entrypoint of the system-monitor and incident-triage lanes: the orchestrator runs the
// compiled file as `node dist/agents/system-monitor-agent/index.js --payload <file>`.
import { runAgentMain } from '../../src/worker-sdk/index.js';
import { systemMonitorAgent } from './lane-router.js';

await runAgentMain(systemMonitorAgent);
