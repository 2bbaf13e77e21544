import type { ApprovalDecisionEntry, RunApproval, RunRecord } from '../domain/run-record.js';
import { withAttemptState, withEvent } from './run-transitions.js';

/**
 * The pure transitions of a held run's approval: an operator's decision, the service's expiry
 * (rejected, reason `expired`) and its escalation (the run stays held, an incident is opened).
 * Each is applied inside the store's compare-and-set (`mutateRun`), so of two deciders on any
 * instances exactly one changes the record.
 */

/** The actor named on what the service decides by itself. */
export const SERVICE_ACTOR = 'service';
/** The reason (approval note) of an approval the service rejected because it expired. */
export const EXPIRED_REASON = 'expired';
/** Entries kept in `approval.decisionHistory` (a held run sees a handful at most: escalation, decision, cancel). */
export const MAX_DECISION_HISTORY = 20;

export const decisionHistoryOf = (approval: RunApproval): ApprovalDecisionEntry[] => approval.decisionHistory ?? [];

const withHistoryEntry = (approval: RunApproval, entry: ApprovalDecisionEntry): ApprovalDecisionEntry[] =>
  [...decisionHistoryOf(approval), entry].slice(-MAX_DECISION_HISTORY);

export const wasEscalated = (run: RunRecord): boolean => decisionHistoryOf(run.approval).some((e) => e.decision === 'escalated');

/** Fails a held run as not approved: an operator's rejection or the service's expiry. */
function rejected(run: RunRecord, now: Date, error: string): RunRecord {
  const next: RunRecord = {
    ...run,
    status: 'failed',
    queueState: null,
    finishedAt: now.toISOString(),
    // Expiry keeps the rejection's failure reason: it is a refusal, not a fault of the lane.
    failureReason: 'approval_rejected',
    error,
  };
  return withAttemptState(next, now, 'failed', 'approval_rejected');
}

/**
 * An operator's decision on a pending approval (null when it is no longer pending). Approved
 * leaves the run pending for its replay (src/tasks/approvals.ts); rejected fails it.
 */
export function withOperatorDecision(
  run: RunRecord,
  now: Date,
  decision: 'approved' | 'rejected',
  actor: string,
  note: string | null,
  replayRunId: string | null,
): RunRecord | null {
  if (run.approval.status !== 'pending') return null;
  const at = now.toISOString();
  const approval: RunApproval = {
    ...run.approval,
    status: decision,
    decidedAt: at,
    decidedBy: actor,
    note,
    replayRunId,
    decisionHistory: withHistoryEntry(run.approval, { at, actor, decision, note }),
  };
  let next: RunRecord = { ...run, approval, queueState: null };
  next = withEvent(next, now, { kind: 'approval', name: decision, detail: note ?? undefined, data: { decidedBy: actor } });
  if (decision === 'approved') return next;
  return rejected(next, now, `approval rejected by ${actor}${note ? `: ${note}` : ''}`);
}

/** The service rejects an approval nobody decided before `expiresAt` (null when there is nothing to do). */
export function withExpiryRejection(run: RunRecord, now: Date): RunRecord | null {
  if (run.approval.status !== 'pending' || !run.approval.expiresAt) return null;
  const at = now.toISOString();
  const note = EXPIRED_REASON;
  const approval: RunApproval = {
    ...run.approval,
    status: 'rejected',
    decidedAt: at,
    decidedBy: SERVICE_ACTOR,
    note,
    replayRunId: null,
    decisionHistory: withHistoryEntry(run.approval, { at, actor: SERVICE_ACTOR, decision: 'expired', note: `no decision by ${run.approval.expiresAt}` }),
  };
  let next: RunRecord = { ...run, approval };
  next = withEvent(next, now, {
    kind: 'approval',
    name: 'rejected',
    detail: EXPIRED_REASON,
    data: { decidedBy: SERVICE_ACTOR, reason: EXPIRED_REASON, expiresAt: run.approval.expiresAt },
  });
  return rejected(next, now, `approval expired at ${run.approval.expiresAt} without a decision: rejected by the service`);
}

/**
 * Marks an expired approval as escalated: the run stays held and can still be decided; the
 * caller opens the incident. Null when already escalated, so two sweeps escalate once.
 */
export function withEscalation(run: RunRecord, now: Date): RunRecord | null {
  if (run.approval.status !== 'pending' || !run.approval.expiresAt || wasEscalated(run)) return null;
  const at = now.toISOString();
  const note = `no decision by ${run.approval.expiresAt}: incident approval-backlog opened`;
  const approval: RunApproval = {
    ...run.approval,
    decisionHistory: withHistoryEntry(run.approval, { at, actor: SERVICE_ACTOR, decision: 'escalated', note }),
  };
  return withEvent({ ...run, approval }, now, {
    kind: 'approval',
    name: 'escalated',
    detail: note,
    data: { expiresAt: run.approval.expiresAt },
  });
}
