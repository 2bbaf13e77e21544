import type { RunRecord } from '../../domain/run-record.js';
import type { ApprovalImpact } from '../../runtime/approval-impact.js';

/**
 * Community leads routed through an approval by nightly-batch say which kind of approval they
 * are: a manual-review lead must be decided before it can be drafted; a promotion is optional.
 */
const LEAD_REVIEW: Record<string, { reason: string; caveat: string }> = {
  'manual-review': {
    reason: 'manual-review community lead: drafting needs explicit approval',
    caveat: 'Mandatory review: the lead is not drafted unless approved.',
  },
  promotion: {
    reason: 'optional promotion of a top-10 draft lead into community-response',
    caveat: 'Optional: rejecting leaves the lead undrafted; nothing is posted either way, drafts wait for a human.',
  },
};

/** The approval screen of a held community-response run says which kind of lead review it is. */
export function leadReviewImpact(run: RunRecord, impact: ApprovalImpact): ApprovalImpact {
  const review = LEAD_REVIEW[String(run.payload.reviewReason)];
  if (!review) return impact;
  return { ...impact, approvalReason: `${review.reason} (${impact.approvalReason})`, caveats: [review.caveat, ...impact.caveats] };
}
