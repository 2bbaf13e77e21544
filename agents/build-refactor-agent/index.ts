// Worker entrypoint of the build-refactor lane: the orchestrator runs the compiled file as
// `node dist/agents/build-refactor-agent/index.js --payload <file>` once an operator approved the task.
import { defineLane, runAgentMain } from '../../src/worker-sdk/index.js';
import { buildRefactor } from './build-refactor.js';

await runAgentMain(defineLane('build-refactor', buildRefactor));
