import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { apiRequest } from '../api/client.js';
import { ErrorNotice, StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { RelativeTime } from '../components/Time.js';
import type { ApprovalWithPayload, DecisionAnswer } from '../lib/api-types.js';
import { decisionOutcome, quorumProgress } from '../lib/approval-decision.js';
import { segment } from '../lib/query-string.js';

/**
 * The link's secret from the URL fragment (`#link=orcl_…`), which the browser never sends to a
 * server. It is read once and the fragment is dropped from the address bar and history, so the
 * secret stays in this page's memory only; it goes to the service in the X-Approval-Link header.
 */
function takeLinkSecret(): string | null {
  const match = /(?:^#|&)link=([^&]+)/.exec(window.location.hash);
  if (!match) return null;
  window.history.replaceState(null, '', `${window.location.pathname}${window.location.search}`);
  return decodeURIComponent(match[1]!);
}

/** An approval reached by a link (docs/approvals-and-reruns.md, "Approval links"): shown and decided without a login. */
export function ApprovalLinkPage() {
  const [secret] = useState(takeLinkSecret);
  const approvalId = new URLSearchParams(window.location.search).get('approval') ?? '';
  const [note, setNote] = useState('');
  const [outcome, setOutcome] = useState<string | null>(null);
  const path = `/api/approvals/${segment(approvalId)}`;
  const approval = useQuery({
    queryKey: ['approval-link', approvalId],
    queryFn: async () => (await apiRequest<ApprovalWithPayload>(path, { approvalLink: secret ?? undefined })).body,
    enabled: secret !== null && approvalId !== '',
    retry: false,
  });
  const decide = useMutation({
    mutationFn: async (decision: 'approved' | 'rejected') =>
      (await apiRequest<DecisionAnswer>(`${path}/decision`, { method: 'POST', approvalLink: secret ?? undefined, body: { decision, ...(note.trim() ? { note: note.trim() } : {}) } })).body,
    onSuccess: (answer, decision) => {
      setOutcome(decisionOutcome(approval.data?.runId ?? approvalId, answer, decision));
      void approval.refetch();
    },
  });
  if (secret === null || approvalId === '') {
    return (
      <main className="page">
        <h1>Approval link</h1>
        <p className="notice">This address holds no approval link. Open the link exactly as it was sent.</p>
      </main>
    );
  }
  const item = approval.data;
  const progress = item ? quorumProgress(item) : null;
  return (
    <main className="page" aria-label="Approval by link">
      <h1>Approval</h1>
      {approval.error && <ErrorNotice error={approval.error} />}
      {outcome && (
        <p role="status" className="outcome">
          {outcome}
        </p>
      )}
      {item && (
        <section className="card">
          <div className="page-head">
            <h2>
              {item.type} — {item.runId}
            </h2>
            <StatusBadge status={item.status} />
            {progress && <span className="badge">{progress}</span>}
          </div>
          <ul className="meta">
            <li>
              asked by <strong>{item.requestedBy ?? 'unknown'}</strong> <RelativeTime iso={item.requestedAt} />
            </li>
          </ul>
          {item.impact?.approvalReason && <p>{item.impact.approvalReason}</p>}
          <h3>Payload</h3>
          <RecordView value={item.payload} />
          {item.status === 'pending' ? (
            <>
              <div className="stack">
                <label htmlFor="link-note">Note</label>
                <input id="link-note" value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
              </div>
              <div className="actions">
                <button type="button" disabled={decide.isPending} onClick={() => decide.mutate('approved')}>
                  Approve
                </button>
                <button type="button" className="danger" disabled={decide.isPending} onClick={() => decide.mutate('rejected')}>
                  Reject
                </button>
              </div>
            </>
          ) : (
            <p className="notice">This approval is {item.status}; the link can no longer decide it.</p>
          )}
          {decide.error && <ErrorNotice error={decide.error} />}
        </section>
      )}
    </main>
  );
}
