import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';

/** Index from an approval id (the held task's id) to its run id, written when a run is held. */
export const APPROVAL_INDEX = 'approval-index';

export async function indexHeldRun(store: StateStore, run: RunRecord): Promise<void> {
  await store.putDoc(APPROVAL_INDEX, run.taskId, { taskId: run.taskId, runId: run.runId, requestedAt: run.approval.requestedAt });
}
