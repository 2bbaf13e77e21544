import { useState } from 'react';
import { Link } from 'react-router';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, LeafTable, QueryView } from '../components/common.js';
import { segment } from '../lib/query-string.js';

interface PendingApproval {
  taskId: string;
  runId: string;
  type: string;
  requestedAt?: string;
  status?: string;
  impact: Record<string, unknown>;
  payloadPreview: { keyCount: number; keys: string[]; internalKeyCount: number };
}

interface Decision {
  taskId: string;
  decision: 'approved' | 'rejected';
  note: string;
}

interface DecisionResult {
  status: 'ok';
  approval: { status?: string; decidedBy?: string };
  replayRunId?: string;
}

function ApprovalItem({ item, onDecided }: { item: PendingApproval; onDecided: (message: string) => void }) {
  const [note, setNote] = useState('');
  const decide = useApiMutation<Decision, DecisionResult>(
    (d) => `/api/approvals/${segment(d.taskId)}/decision`,
    (d) => (d.note.trim() ? { decision: d.decision, note: d.note.trim() } : { decision: d.decision }),
  );
  const submit = (decision: Decision['decision']) =>
    decide.mutate(
      { taskId: item.taskId, decision, note },
      {
        onSuccess: ({ body }) =>
          onDecided(
            `${item.runId}: ${body.approval.status ?? decision} by ${body.approval.decidedBy ?? 'you'}` +
              (body.replayRunId ? `; replay run ${body.replayRunId}` : ''),
          ),
      },
    );
  const noteId = `note-${item.taskId}`;
  return (
    <li className="card" aria-label={`Approval ${item.runId}`}>
      <h2>
        {item.type} — <Link to={`/runs/${segment(item.runId)}`}>{item.runId}</Link>
      </h2>
      <p className="muted">Requested {item.requestedAt ?? '—'}</p>
      <LeafTable caption="Impact" value={item.impact} />
      <p>
        Payload keys ({item.payloadPreview.keyCount}): {item.payloadPreview.keys.join(', ') || '(none)'}
        {item.payloadPreview.internalKeyCount > 0 ? `; ${item.payloadPreview.internalKeyCount} internal` : ''}
      </p>
      <label htmlFor={noteId}>Note</label>
      <input id={noteId} value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
      <div className="actions">
        <button type="button" disabled={decide.isPending} onClick={() => submit('approved')}>
          Approve
        </button>
        <button type="button" disabled={decide.isPending} onClick={() => submit('rejected')}>
          Reject
        </button>
      </div>
      {decide.error && <ErrorNotice error={decide.error} />}
    </li>
  );
}

export function ApprovalsPage() {
  const { identity } = useSession();
  const allowed = can(identity?.role, 'readApprovals');
  const pending = useApiQuery<{ count: number; pending: PendingApproval[] }>('/api/approvals/pending', {
    enabled: allowed,
    refetchInterval: 5_000,
  });
  const [last, setLast] = useState<string | null>(null);
  if (!allowed) {
    return (
      <>
        <h1>Approvals</h1>
        <p className="muted">Pending approvals and decisions need the operator role; this key is {identity?.role}.</p>
      </>
    );
  }
  return (
    <>
      <h1>Approvals</h1>
      {last && (
        <p role="status" className="outcome">
          Decided {last}
        </p>
      )}
      <QueryView query={pending} label="pending approvals">
        {(data) =>
          data.count === 0 ? (
            <p role="status">No approvals pending.</p>
          ) : (
            <ul className="cards" aria-label="Pending approvals">
              {data.pending.map((item) => (
                <ApprovalItem key={item.taskId} item={item} onDecided={setLast} />
              ))}
            </ul>
          )
        }
      </QueryView>
    </>
  );
}
