import type { RunView } from '../api/types.js';

/** The fields that say whether a run waits for an approval decision. */
type HeldFields = Pick<RunView, 'status' | 'approval' | 'workflow'> & { queueState?: unknown };

/**
 * Held for an approval decision right now. Its status stays `pending` (the contract's status);
 * the queue state `held` says why it does not start. Services that do not send `queueState`
 * still say so through the workflow stage and the pending approval, so any of them is enough;
 * a decided or cancelled approval is never held.
 */
export function isAwaitingApproval(run: HeldFields): boolean {
  if (run.status !== 'pending') return false;
  // `held` is the service's queue state; `awaiting-approval` the name its stages and attempts use.
  if (run.queueState === 'held' || run.queueState === 'awaiting-approval') return true;
  if (run.workflow?.awaitingApproval === true) return true;
  return run.approval.required && run.approval.status === 'pending';
}

/** The value of the runs list's status filter that lists held runs (`?status=awaiting-approval`). */
export const HELD_FILTER = 'awaiting-approval';
