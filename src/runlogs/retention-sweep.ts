import { PRUNABLE_STATUSES } from '../store/run-rules.js';
import type { StateStore } from '../store/types.js';
import { deleteAttemptLog } from './attempt-writer.js';
import { RUN_LOG_INDEX_COLLECTION, parseIndexEntry, type RunLogIndexEntry } from './run-log-docs.js';

/** The logged attempts of one run (one admission of a run id: one task id). */
interface LoggedRun {
  runId: string;
  taskId: string;
  runSeq: number;
  attemptIds: string[];
}

function byRun(entries: RunLogIndexEntry[]): LoggedRun[] {
  const runs = new Map<string, LoggedRun>();
  for (const entry of entries) {
    const key = `${entry.taskId}\u0000${entry.runId}`;
    const run = runs.get(key) ?? { runId: entry.runId, taskId: entry.taskId, runSeq: entry.runSeq, attemptIds: [] };
    run.attemptIds.push(entry.attemptId);
    runs.set(key, run);
  }
  return [...runs.values()].sort((a, b) => a.runSeq - b.runSeq);
}

/** True while the index still names this admission for the attempt (a new run with the same id may have taken it over). */
async function stillIndexedFor(store: StateStore, attemptId: string, taskId: string): Promise<boolean> {
  const doc = await store.getDoc(RUN_LOG_INDEX_COLLECTION, attemptId);
  return doc !== null && parseIndexEntry(doc)?.taskId === taskId;
}

/**
 * Removes the logs of runs the store no longer has: retention pruned them (or a later run took
 * their id). Walks the logged runs oldest first and stops at the first one that still exists in
 * a prunable status: pruning deletes finished runs strictly oldest first, so every finished run
 * after that one is still there too. A run that finished after the prune passed it is left for
 * the next pass, which prunes it first. Returns how many runs' logs were removed.
 */
export async function sweepRunLogs(store: StateStore): Promise<number> {
  const entries = (await store.listDocEntries(RUN_LOG_INDEX_COLLECTION)).flatMap(({ doc }) => parseIndexEntry(doc) ?? []);
  let removed = 0;
  for (const logged of byRun(entries)) {
    const run = await store.getRun(logged.runId);
    if (run !== null && run.taskId === logged.taskId) {
      if (PRUNABLE_STATUSES.includes(run.status)) break;
      continue;
    }
    for (const attemptId of logged.attemptIds) {
      if (run === null || (await stillIndexedFor(store, attemptId, logged.taskId))) await deleteAttemptLog(store, attemptId);
    }
    removed += 1;
  }
  return removed;
}
