import type { WorkerFailure, WorkerSpawner } from '../workers/spawn-worker.js';

/** Failures of a worker that never ran: its process could not be started. */
const NOT_STARTED: ReadonlySet<WorkerFailure> = new Set<WorkerFailure>(['spawn-error', 'no-entrypoint']);

/**
 * The spawner, telling `onSpawnFailure` of every worker whose process could not be started
 * (unknown agent, no entrypoint, a spawn error). A worker that started and then failed (timeout,
 * crash, no JSON, logical failure) fails its run and is counted there.
 */
export function observeSpawnFailures(spawner: WorkerSpawner, onSpawnFailure: (taskType: string) => void): WorkerSpawner {
  return {
    async run(request) {
      const outcome = await spawner.run(request);
      if (outcome.failure !== null && NOT_STARTED.has(outcome.failure)) onSpawnFailure(request.taskType);
      return outcome;
    },
  };
}
