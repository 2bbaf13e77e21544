import { getCatalogEntry } from './catalog.js';
import { finalizeAttempt, type FinalizeDeps } from './finalize.js';
import { readRecoveredWorkerResult } from './recovered-result.js';
import { markCancelled } from './run-cancellation.js';
import { recoverInterrupted } from './run-transitions.js';
import { runWriteTags } from './admission.js';
import { removeWorkerDirectory } from '../common/worker-protocol.js';
import type { RunRecord } from '../domain/run-record.js';

export interface RecoveryDeps extends FinalizeDeps {
  /**
   * Whether this instance still holds the attempt (Runner.holds). Such an attempt is never
   * abandoned, whatever its lease says: a lease that ran out while renewals failed belongs to a
   * live instance, which stops the attempt itself before letting it go. Absent at start-up,
   * when this instance holds nothing yet.
   */
  heldHere?: (runId: string, attempt: number) => boolean;
}

/**
 * Finds runs left `running` by a process that is gone. An attempt whose worker made its answer
 * durable is finished from that answer (it never runs twice); any other is re-admitted once
 * under a new queue attempt, and a second interruption fails it as `interrupted`. With an
 * exclusive store every running run belongs to a dead predecessor; otherwise only runs whose
 * claim lease has expired are taken. A run whose cancel was requested is never run again, nor
 * finished from its result: it ends `cancelled` (its processes were ended before recovery ran,
 * src/workers/group-ledger.ts, or by their own parent watch).
 */
export async function recoverInterruptedRuns(deps: RecoveryDeps): Promise<{ requeued: number; failed: number; finished: number; cancelled: number }> {
  const { store, clock } = deps;
  const now = clock.now();
  const running = await store.listRuns({ status: 'running', includeInternal: true, limit: 100_000, order: 'oldest' });
  const counts = { requeued: 0, failed: 0, finished: 0, cancelled: 0 };
  const abandoned = (current: RunRecord | null, attempt: number): current is RunRecord => {
    if (!current || current.status !== 'running' || current.attempt !== attempt) return false;
    if (deps.heldHere?.(current.runId, attempt)) return false;
    const leaseExpired = !current.claim || new Date(current.claim.leaseUntil).getTime() <= now.getTime();
    return store.exclusive || leaseExpired;
  };

  for (const run of running.items) {
    if (!abandoned(run, run.attempt)) continue;
    if (run.cancellation) {
      const detail = `attempt ${run.attempt} ended with its instance (owner ${run.claim?.ownerId ?? 'unknown'}) before the cancel completed`;
      const written = await store.mutateRun(run.runId, (current) =>
        abandoned(current, run.attempt) ? { ...markCancelled(current, now, null, detail), workerDirectory: null } : null,
      );
      if (run.workerDirectory) await removeWorkerDirectory(run.workerDirectory);
      if (!written.changed || !written.after) continue;
      counts.cancelled += 1;
      await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
      await deps.onRunFinished(written.after);
      deps.logger.warn({ runId: run.runId }, 'recovered a run whose cancel was requested: cancelled, not run again');
      continue;
    }
    const recovered = await readRecoveredWorkerResult(run);
    if (recovered) {
      const entry = getCatalogEntry(run.type);
      const stored = await finalizeAttempt(deps, run, entry?.retryable ?? false, recovered, (c): c is RunRecord => abandoned(c, run.attempt), {
        name: 'finished-from-durable-worker-result',
        detail: `attempt ${run.attempt} finished before its orchestrator stopped; recorded after restart`,
      });
      await recovered.release?.();
      if (stored) counts.finished += 1;
      deps.logger.warn({ runId: run.runId, status: stored?.status }, 'finished interrupted run from its durable worker result');
      continue;
    }
    const written = await store.mutateRun(run.runId, (current) =>
      abandoned(current, run.attempt) ? { ...recoverInterrupted(current, now), workerDirectory: null } : null,
    );
    if (run.workerDirectory) await removeWorkerDirectory(run.workerDirectory);
    if (!written.changed || !written.after) continue;
    if (written.after.status === 'pending') counts.requeued += 1;
    else counts.failed += 1;
    await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
    deps.logger.warn({ runId: run.runId, status: written.after.status }, 'recovered interrupted run');
  }
  return counts;
}
