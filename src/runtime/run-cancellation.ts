import type { RunApproval, RunCancellation, RunRecord } from '../domain/run-record.js';
import { withAttemptState, withEvent } from './run-transitions.js';

/**
 * The run transitions of a cancel (docs/run-control.md, "Cancel"). A run that has not started
 * (pending, held for approval, or retrying between attempts) ends `cancelled` at once. A
 * running run first gets its `cancellation` recorded while it stays `running`; its owner then
 * stops the attempt and writes it `cancelled` (markCancelled), and so does restart recovery
 * when the owner died in between. Nothing cancelled is started, retried or recovered again.
 */

/** Who asked and why. */
export interface CancelRequest {
  actor: string;
  reason: string | null;
}

/** How a cancel request meets a run, decided from the run as stored. */
export type CancelDecision =
  /** Not started: ends `cancelled` now. */
  | { kind: 'end-now' }
  /** Running: the request is recorded, the owner stops the attempt. */
  | { kind: 'stop-running' }
  /** Asked before and still stopping (the run keeps `running` until its processes are gone). */
  | { kind: 'already-cancelling' }
  | { kind: 'already-cancelled' }
  /** Finished, or an approved hold whose work already runs as its replay: 409. */
  | { kind: 'conflict'; message: string };

/** Words of the reply: `cancelled` (200) or `cancelling` (202). */
export type CancelReplyStatus = 'cancelled' | 'cancelling';

export function cancelDecisionFor(run: RunRecord): CancelDecision {
  switch (run.status) {
    case 'cancelled':
      return { kind: 'already-cancelled' };
    case 'running':
      return run.cancellation ? { kind: 'already-cancelling' } : { kind: 'stop-running' };
    case 'success':
    case 'failed':
    case 'skipped':
      return { kind: 'conflict', message: `run ${run.runId} already finished (status ${run.status})` };
    // A flow step waiting for its dependencies ends `cancelled` too, and its dependents' policy applies.
    case 'waiting':
    case 'retrying':
      return { kind: 'end-now' };
    case 'pending':
      // An approved hold is closed once its replay is admitted: the work is the replay run.
      if (run.approval.status === 'approved') {
        const replay = run.approval.replayRunId ?? 'its replay';
        return { kind: 'conflict', message: `run ${run.runId} was approved and its work runs as ${replay}; cancel that run instead` };
      }
      return { kind: 'end-now' };
  }
}

/** The reply a decision answers with, also when asked again (a second cancel answers as the first did). */
export function replyStatusOf(decision: CancelDecision): CancelReplyStatus | null {
  switch (decision.kind) {
    case 'end-now':
    case 'already-cancelled':
      return 'cancelled';
    case 'stop-running':
    case 'already-cancelling':
      return 'cancelling';
    case 'conflict':
      return null;
  }
}

function cancellationOf(request: CancelRequest, now: Date): RunCancellation {
  return { requestedAt: now.toISOString(), requestedBy: request.actor, reason: request.reason, completedAt: null, signal: null };
}

/** A held run's approval closes as cancelled (it leaves the pending list with its queue state). */
function cancelledApproval(approval: RunApproval, request: CancelRequest, now: Date): RunApproval {
  const at = now.toISOString();
  return {
    ...approval,
    status: 'cancelled',
    decidedAt: at,
    decidedBy: request.actor,
    note: request.reason,
    decisionHistory: [...(approval.decisionHistory ?? []), { at, actor: request.actor, decision: 'cancelled', note: request.reason }],
  };
}

/** The run ended before it started: pending, held or retrying, now `cancelled` with signal null. */
export function cancelBeforeStart(run: RunRecord, now: Date, request: CancelRequest): RunRecord {
  const held = run.queueState === 'held' && run.approval.status === 'pending';
  let next: RunRecord = withEvent(run, now, {
    kind: 'queue',
    name: 'cancel-requested',
    detail: request.reason ?? undefined,
    data: { requestedBy: request.actor },
  });
  if (held) {
    next = { ...next, approval: cancelledApproval(next.approval, request, now) };
    next = withEvent(next, now, { kind: 'approval', name: 'approval-cancelled', data: { decidedBy: request.actor } });
  }
  next = {
    ...next,
    status: 'cancelled',
    queueState: null,
    claim: null,
    retry: null,
    finishedAt: now.toISOString(),
    cancellation: { ...cancellationOf(request, now), completedAt: now.toISOString(), signal: null },
  };
  next = withAttemptState(next, now, 'failed', `cancelled by ${request.actor} before it started`);
  return withEvent(next, now, { kind: 'queue', name: 'cancelled', detail: `cancelled by ${request.actor} before it started`, data: { signal: null } });
}

/** A running run: the request is recorded (durably, before anything is stopped); the run stays `running`. */
export function recordCancelRequest(run: RunRecord, now: Date, request: CancelRequest): RunRecord {
  const next: RunRecord = { ...run, cancellation: cancellationOf(request, now) };
  return withEvent(next, now, {
    kind: 'execution',
    name: 'cancel-requested',
    detail: request.reason ?? undefined,
    data: { requestedBy: request.actor, attempt: run.attempt },
  });
}

/** Applies a cancel request to the run as stored; null when it changes nothing (asked again, or a conflict). */
export function applyCancelRequest(run: RunRecord, now: Date, request: CancelRequest): RunRecord | null {
  const decision = cancelDecisionFor(run);
  if (decision.kind === 'end-now') return cancelBeforeStart(run, now, request);
  if (decision.kind === 'stop-running') return recordCancelRequest(run, now, request);
  return null;
}

/**
 * The attempt of a run whose cancel was requested has stopped: the run ends `cancelled`, not
 * failed and never retried. `signal` says how it was stopped: `abort` (an in-process handler's
 * AbortSignal), `SIGTERM` or `SIGKILL` (a worker's process group), or null when nothing was
 * left to signal (its processes had already ended, or its instance died before the kill).
 */
export function markCancelled(run: RunRecord, now: Date, signal: string | null, detail?: string): RunRecord {
  const requested = run.cancellation ?? { requestedAt: now.toISOString(), requestedBy: 'service', reason: null, completedAt: null, signal: null };
  const how = detail ?? (signal ? `attempt ${run.attempt} stopped (${signal})` : `attempt ${run.attempt} stopped`);
  let next: RunRecord = {
    ...run,
    status: 'cancelled',
    queueState: null,
    claim: null,
    retry: null,
    finishedAt: now.toISOString(),
    cancellation: { ...requested, completedAt: now.toISOString(), signal },
  };
  next = withAttemptState(next, now, 'failed', `cancelled by ${requested.requestedBy}: ${how}`);
  return withEvent(next, now, { kind: 'execution', name: 'cancelled', detail: how, data: { signal } });
}
