import type { RunRecord } from '../domain/run-record.js';

/**
 * Who a run's work is requested by. More than the key that admitted it: whoever shaped the
 * work counts too (a schedule's creator and every actor who changed its work, a rerun's caller
 * and the original's requesters, a workflow's requesters for its steps), so that none of them
 * can approve it alone where the approval policy forbids self-approval.
 */

/** The requesters recorded on a run; a run stored before they were recorded has its `requestedBy` alone. */
export const requestersOf = (run: Pick<RunRecord, 'requestedBy' | 'requesters'>): string[] => run.requesters ?? [run.requestedBy];

/** Actors in first-seen order, each once. */
export function actorList(...lists: ReadonlyArray<readonly string[]>): string[] {
  return [...new Set(lists.flat())];
}
