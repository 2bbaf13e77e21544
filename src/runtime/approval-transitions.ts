import type { ApprovalDecisionEntry, RunApproval, RunRecord } from '../domain/run-record.js';
import { APPROVAL_REJECTED_REASON } from '../domain/approval-refusal.js';
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
    failureReason: APPROVAL_REJECTED_REASON,
    error,
  };
  return withAttemptState(next, now, 'failed', APPROVAL_REJECTED_REASON);
}

/** Distinct actors whose approvals a held run has received, in the order they approved. */
export const approversOf = (approval: RunApproval): string[] => [
  ...new Set(decisionHistoryOf(approval).filter((e) => e.decision === 'approved').map((e) => e.actor)),
];

/** The decision `actor` already took on the approval, or null: an actor decides once. */
export const decisionBy = (approval: RunApproval, actor: string): ApprovalDecisionEntry | null =>
  decisionHistoryOf(approval).find((e) => e.actor === actor && (e.decision === 'approved' || e.decision === 'rejected')) ?? null;

/** One operator's decision as the transition applies it. */
export interface OperatorDecision {
  decision: 'approved' | 'rejected';
  actor: string;
  note: string | null;
  /** What the approver adds to the replay's payload (already checked); null when nothing. */
  input: Record<string, unknown> | null;
  /** Distinct approvals that admit the replay (approvalPolicy.requiredApprovals). */
  requiredApprovals: number;
  /** The replay's run id, set on the approval once the quorum is reached. */
  replayRunId: string;
}

/**
 * An operator's decision on a pending approval; null when it is no longer pending or the actor
 * has already decided it. An approval short of the quorum is recorded and leaves the run held;
 * the one that reaches it approves (the run stays pending for its replay, src/runtime/approvals.ts);
 * a rejection fails it whatever approvals came before.
 */
export function withOperatorDecision(run: RunRecord, now: Date, d: OperatorDecision): RunRecord | null {
  if (run.approval.status !== 'pending' || decisionBy(run.approval, d.actor) !== null) return null;
  const at = now.toISOString();
  const entry: ApprovalDecisionEntry = { at, actor: d.actor, decision: d.decision, note: d.note, ...(d.input ? { input: d.input } : {}) };
  const decisionHistory = withHistoryEntry(run.approval, entry);
  if (d.decision === 'approved') {
    const received = approversOf({ ...run.approval, decisionHistory }).length;
    if (received < d.requiredApprovals) {
      const approval: RunApproval = { ...run.approval, decisionHistory };
      return withEvent({ ...run, approval }, now, {
        kind: 'approval',
        name: 'approval-received',
        detail: `${received} of ${d.requiredApprovals} approvals`,
        data: { decidedBy: d.actor, received, required: d.requiredApprovals },
      });
    }
  }
  const approval: RunApproval = {
    ...run.approval,
    status: d.decision,
    decidedAt: at,
    decidedBy: d.actor,
    note: d.note,
    replayRunId: d.decision === 'approved' ? d.replayRunId : null,
    decisionHistory,
  };
  let next: RunRecord = { ...run, approval, queueState: null };
  next = withEvent(next, now, { kind: 'approval', name: d.decision, detail: d.note ?? undefined, data: { decidedBy: d.actor } });
  if (d.decision === 'approved') return next;
  return rejected(next, now, `approval rejected by ${d.actor}${d.note ? `: ${d.note}` : ''}`);
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
