import type { AlertNotice } from './types.js';

/**
 * A notice as one chat message: what fired or cleared, and the `/orch` command to follow it up
 * (a run's status, the pending approvals), so a reader acts from the channel itself.
 */
export function chatText(notice: AlertNotice): string {
  const head = notice.kind === 'firing' ? `[${notice.severity.toUpperCase()}] ${notice.ruleId}` : `[RESOLVED] ${notice.ruleId}`;
  const { runId, expiresAt, incidentId } = notice.labels;
  // An approval about to expire carries its held run and the expiry: the list of approvals is where it is decided.
  const followUp = expiresAt && runId ? '/orch approvals' : runId ? `/orch status ${runId}` : incidentId ? '/orch incidents' : null;
  return [`${head}: ${notice.summary}`, ...(followUp ? [`Follow up: ${followUp}`] : [])].join('\n');
}
