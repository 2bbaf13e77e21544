// Worker entrypoint of the test-intelligence lane: the orchestrator runs the compiled file as
// `node dist/agents/test-intelligence-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { testIntelligence } from './intelligence.js';

await runAgentMain(defineLane('test-intelligence', testIntelligence));
