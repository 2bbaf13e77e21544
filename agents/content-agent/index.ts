// Worker entrypoint of the content-generate lane: the orchestrator runs the compiled file as
// `node dist/agents/content-agent/index.js --payload <file>`.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { generateContent } from './generate.js';

await runAgentMain(defineLane('content-generate', generateContent));
