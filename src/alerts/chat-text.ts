import type { NoticeApprovalLinks } from './approval-links.js';
import type { AlertNotice } from './types.js';

/**
 * A notice as one chat message: what fired or cleared, and the `/orch` command to follow it up
 * (a run's status, the pending approvals), so a reader acts from the channel itself.
 */
export function chatText(notice: AlertNotice, approval?: NoticeApprovalLinks): string {
  const head = notice.kind === 'firing' ? `[${notice.severity.toUpperCase()}] ${notice.ruleId}` : `[RESOLVED] ${notice.ruleId}`;
  const { runId, approvalId, expiresAt, incidentId } = notice.labels;
  // An approval notice names its held run (notices made before approvalId was a label: its expiry): the list of approvals is where it is decided.
  const followUp = (approvalId ?? expiresAt) && runId ? '/orch approvals' : runId ? `/orch status ${runId}` : incidentId ? '/orch incidents' : null;
  return [`${head}: ${notice.summary}`, ...(followUp ? [`Follow up: ${followUp}`] : []), ...(approval ? approvalLines(approval) : [])].join('\n');
}

/** One line per approver's link (theirs alone: it decides as them), or the approve page when none can be named. */
function approvalLines(approval: NoticeApprovalLinks): string[] {
  if (approval.links.length === 0) return [`Decide it: ${approval.pageUrl}`];
  return approval.links.map((link) => `Decide as ${link.actor} (until ${link.expiresAt}): ${link.url}`);
}
