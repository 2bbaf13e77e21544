import { runAgentMain, type PayloadTaskType, type WorkerLane } from '../worker-sdk/index.js';
import { runOperatorProgram } from './run-program.js';

/**
 * The worker entrypoint of every operator task type: the service spawns it as it spawns an
 * agent's worker (its own process group, minimal environment, timeout, cancel, run log), and it
 * runs the type's program as a project command in the sandbox (src/operator-types/run-program.ts).
 * An operator type has no schema in this process: admission checked its payload already.
 */
const lane: WorkerLane = {
  taskType: 'operator' as PayloadTaskType,
  run: (payload, context) => runOperatorProgram(payload, context, { env: process.env }),
};

void runAgentMain(lane);
