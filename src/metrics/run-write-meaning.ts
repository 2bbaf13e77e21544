import { closedForReplay, endedByApprovalRefusal } from '../domain/approval-refusal.js';
import { isTerminalStatus, type RunEvent, type RunRecord } from '../domain/run-record.js';

/**
 * What one committed write of a run means for the run metrics, read from the record before and
 * after it (pure). The runtime names no metric: every figure is derived from the transition the
 * write made, the way the event streams derive their events from the same writes.
 */

/**
 * How a finished run is counted. The run's terminal status, except for a held run settled by
 * its approval, which never executed: `rejected` (rejected or expired; stored `failed` with reason
 * `approval_rejected`) is not a failure of its lane, and `approved` (closed `success` once its
 * replay was admitted) is not a success of it either: the replay run carries the work and is
 * counted when it finishes. A flow step its dependencies' outcome ended without running is
 * `skipped`.
 */
export const FINISH_STATUSES = ['success', 'failed', 'cancelled', 'skipped', 'rejected', 'approved'] as const;
export type FinishStatus = (typeof FINISH_STATUSES)[number];


/** Statuses a run's attempt leaves `running` for when it ends (a requeue after an interruption is no end). */
const ATTEMPT_END_STATUSES = new Set(['success', 'failed', 'retrying', 'cancelled']);

/** A held run that a decision ended without it ever executing: rejected (or expired), or closed for its replay. */
export function finishStatusOf(run: RunRecord): FinishStatus {
  if (endedByApprovalRefusal(run)) return 'rejected';
  if (closedForReplay(run)) return 'approved';
  return run.status === 'success' || run.status === 'cancelled' || run.status === 'skipped' ? run.status : 'failed';
}

/** The write ended the run (it reached a terminal status now): how it is counted; null otherwise. */
export function finishedBy(before: RunRecord | null, after: RunRecord | null): FinishStatus | null {
  if (after === null || !isTerminalStatus(after.status)) return null;
  if (before !== null && isTerminalStatus(before.status)) return null;
  return finishStatusOf(after);
}

const secondsBetween = (from: string | null | undefined, to: string | null | undefined): number | null => {
  if (!from || !to) return null;
  const ms = Date.parse(to) - Date.parse(from);
  return Number.isFinite(ms) && ms >= 0 ? ms / 1000 : null;
};

/** The write ended an executing attempt: how long it executed (claim to end), in seconds; null otherwise. */
export function attemptEndedAfter(before: RunRecord | null, after: RunRecord | null): number | null {
  if (before?.status !== 'running' || after === null || !ATTEMPT_END_STATUSES.has(after.status)) return null;
  return secondsBetween(before.startedAt, after.finishedAt ?? after.updatedAt);
}

/** The write started an attempt without a claim (an admission that found a free slot starts its run at once). */
export function startedBy(before: RunRecord | null, after: RunRecord | null): boolean {
  return after?.status === 'running' && before?.status !== 'running';
}

/** The write scheduled a retry: the run entered `retrying`. */
export function retryScheduledBy(before: RunRecord | null, after: RunRecord | null): boolean {
  return after?.status === 'retrying' && before?.status !== 'retrying';
}

/**
 * How long a claimed attempt waited to start, in seconds: from its admission (the run's, a
 * retry's or a requeue's `admitted` queue-attempt entry) to its claim. A retry's backoff and a
 * held run's wait for its approval are not in it: the one ends, the other is never claimed,
 * before that entry is written.
 */
export function queueWaitOf(claimed: RunRecord): number | null {
  let admittedAt: string | null = null;
  for (const entry of claimed.queueAttempts) {
    if (entry.attempt === claimed.attempt && entry.state === 'admitted') admittedAt = entry.at;
  }
  return secondsBetween(admittedAt, claimed.startedAt);
}

/** The events the write appended (the store keeps a run's newest events, numbered in order). */
export function eventsAppendedBy(before: RunRecord | null, after: RunRecord | null): RunEvent[] {
  if (after === null) return [];
  const last = before?.events.at(-1)?.seq ?? 0;
  return after.events.filter((event) => event.seq > last);
}

/** One model call as its `model-call` event records it (src/models/gateway.ts). */
export interface MeteredModelCall {
  model: string;
  outcome: string;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

const numberOr0 = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

/** The model calls among the events a write appended. */
export function modelCallsIn(events: readonly RunEvent[]): MeteredModelCall[] {
  return events.flatMap((event) => {
    if (event.name !== 'model-call' || event.data === undefined) return [];
    const { model, outcome, inputTokens, outputTokens, costUsd } = event.data;
    return [
      {
        model: typeof model === 'string' ? model : '',
        outcome: typeof outcome === 'string' ? outcome : '',
        inputTokens: numberOr0(inputTokens),
        outputTokens: numberOr0(outputTokens),
        costUsd: numberOr0(costUsd),
      },
    ];
  });
}
