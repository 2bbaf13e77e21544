// Worker entrypoint of the qa-verification lane: the orchestrator runs the compiled file as
// `node dist/agents/qa-verification-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { qaVerification } from './verify.js';

await runAgentMain(defineLane('qa-verification', qaVerification));
