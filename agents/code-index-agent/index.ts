// Worker entrypoint of the code-index lane: the orchestrator runs the compiled file as
// `node dist/agents/code-index-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { codeIndex } from './code-index.js';

await runAgentMain(defineLane('code-index', codeIndex));
