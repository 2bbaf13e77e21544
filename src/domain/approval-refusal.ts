import type { RunRecord } from './run-record.js';

/**
 * The failure reason of a held run whose approval was rejected or expired. The contract ends such
 * a run `failed`, but its lane never ran.
 */
export const APPROVAL_REJECTED_REASON = 'approval_rejected';

/** The fields of a run that say whether its approval, not its lane, settled it. */
export type ApprovalSettledFields = Pick<RunRecord, 'status'> & {
  failureReason?: string | null;
  startedAt?: string | null;
  approval?: Pick<RunRecord['approval'], 'status'>;
};

/** True for a held run that ended failed because its approval was refused (rejected or expired). */
export function endedByApprovalRefusal(run: ApprovalSettledFields): boolean {
  return run.status === 'failed' && run.failureReason === APPROVAL_REJECTED_REASON;
}

/** True for a held run closed `success` by its approval: its replay run does the work and counts for the lane. */
export function closedForReplay(run: ApprovalSettledFields): boolean {
  return run.status === 'success' && run.startedAt === null && run.approval?.status === 'approved';
}

export type ApprovalSettlement = 'rejected' | 'closedForReplay';

/** How a decision settled the run without its lane running, or null when it did not. */
export function approvalSettlementOf(run: ApprovalSettledFields): ApprovalSettlement | null {
  if (endedByApprovalRefusal(run)) return 'rejected';
  return closedForReplay(run) ? 'closedForReplay' : null;
}

/**
 * A held run that a decision ended without it ever executing. Failure and success rates, incidents
 * and metrics leave such runs out: they say nothing about whether the lane works.
 */
export function settledByApproval(run: ApprovalSettledFields): boolean {
  return endedByApprovalRefusal(run) || closedForReplay(run);
}
