import { useState } from 'react';
import { Link } from 'react-router';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { EmptyState, Loadable } from '../components/states.js';
import { RelativeTime, TimeLeft } from '../components/Time.js';
import type { ApprovalWithPayload, DecisionAnswer, PendingApproval, PendingApprovals } from '../lib/api-types.js';
import { segment } from '../lib/query-string.js';

interface Decision {
  taskId: string;
  decision: 'approved' | 'rejected';
  note: string;
}

/** Why this identity may not decide the approval (the service's own rule), or null. */
function refusal(item: PendingApproval, actor: string, role: string): string | null {
  if (item.policy.approverRole === 'admin' && role !== 'admin') return `Deciding a ${item.type} approval needs the admin role; you are ${role}.`;
  if (!item.policy.allowSelfApproval && item.requesters.includes(actor)) {
    return `You asked for or shaped this run (its requesters: ${item.requesters.join(', ')}), and the approval policy for ${item.type} does not allow self-approval: another ${item.policy.approverRole} must decide it.`;
  }
  return null;
}

function Payload({ taskId }: { taskId: string }) {
  const detail = useApiQuery<ApprovalWithPayload>(`/api/approvals/${segment(taskId)}`);
  return (
    <Loadable query={detail} label="payload" isEmpty={(d) => Object.keys(d.payload).length === 0} empty="The payload is empty.">
      {(d) => <RecordView value={d.payload} />}
    </Loadable>
  );
}

function ApprovalItem({ item, onDecided }: { item: PendingApproval; onDecided: (message: string) => void }) {
  const { identity } = useSession();
  const [note, setNote] = useState('');
  const [showPayload, setShowPayload] = useState(false);
  const decide = useApiMutation<Decision, DecisionAnswer>(
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
  const refused = identity ? refusal(item, identity.actor, identity.role) : null;
  const impact = item.impact;
  return (
    <li className="card" aria-label={`Approval ${item.runId}`} id={`approval-${segment(item.taskId)}`}>
      <div className="page-head">
        <h2>
          {item.type} — <Link to={`/runs/${segment(item.runId)}`}>{item.runId}</Link>
        </h2>
        {impact?.riskLevel && <StatusBadge status={`${impact.riskLevel} risk`} />}
      </div>
      <ul className="meta">
        <li>
          asked by <strong>{item.requestedBy ?? 'unknown'}</strong> <RelativeTime iso={item.requestedAt} />
        </li>
        <li>
          {item.expiresAt ? (
            <>
              <TimeLeft iso={item.expiresAt} label="before expiry" /> (then {item.policy.onExpiry === 'reject' ? 'rejected' : 'escalated'})
            </>
          ) : (
            'does not expire'
          )}
        </li>
        <li>decided by {item.policy.approverRole === 'admin' ? 'an admin' : 'an operator'}</li>
      </ul>
      {(impact?.approvalReason ?? item.reason) && <p>{impact?.approvalReason ?? item.reason}</p>}
      {impact && (
        <dl className="fields">
          <div className="field">
            <dt>Dependency class</dt>
            <dd>{impact.dependencyClass ?? '—'}</dd>
          </div>
          <div className="field">
            <dt>Affected surfaces</dt>
            <dd>{impact.affectedSurfaces?.length ? impact.affectedSurfaces.join(', ') : 'none named'}</dd>
          </div>
          <div className="field">
            <dt>Needs</dt>
            <dd>{impact.dependencyRequirements?.length ? impact.dependencyRequirements.join(', ') : 'nothing external'}</dd>
          </div>
          {impact.caveats && impact.caveats.length > 0 && (
            <div className="field field-wide">
              <dt>Caveats</dt>
              <dd>{impact.caveats.join(' ')}</dd>
            </div>
          )}
        </dl>
      )}
      <h3>Payload</h3>
      <p className="hint">
        {item.payloadPreview.keyCount} fields: {item.payloadPreview.keys.join(', ') || '(none)'}
        {item.payloadPreview.internalKeyCount > 0 ? `; ${item.payloadPreview.internalKeyCount} internal` : ''}
      </p>
      <button type="button" className="secondary" aria-expanded={showPayload} onClick={() => setShowPayload((v) => !v)}>
        {showPayload ? 'Hide payload' : 'Show payload'}
      </button>
      {showPayload && <Payload taskId={item.taskId} />}
      {item.decisionHistory.length > 0 && (
        <>
          <h3>Decision history</h3>
          <ol className="timeline">
            {item.decisionHistory.map((h, index) => (
              <li key={`${h.at}-${index}`}>
                <strong>{h.decision}</strong> by {h.actor} {h.note && <>— {h.note}</>}
                <div className="when">
                  <RelativeTime iso={h.at} />
                </div>
              </li>
            ))}
          </ol>
        </>
      )}
      {refused ? (
        <p className="notice" role="note">
          {refused}
        </p>
      ) : (
        <>
          <div className="stack">
            <label htmlFor={noteId}>Note</label>
            <input id={noteId} value={note} maxLength={2000} onChange={(e) => setNote(e.target.value)} />
          </div>
          <div className="actions">
            <button type="button" disabled={decide.isPending} onClick={() => submit('approved')}>
              Approve
            </button>
            <button type="button" className="danger" disabled={decide.isPending} onClick={() => submit('rejected')}>
              Reject
            </button>
          </div>
        </>
      )}
      {decide.error && <ErrorNotice error={decide.error} />}
    </li>
  );
}

export function ApprovalsPage() {
  const { identity } = useSession();
  const allowed = can(identity?.role, 'readApprovals');
  const pending = useApiQuery<PendingApprovals>('/api/approvals/pending', {
    enabled: allowed,
    refetchInterval: 5_000,
  });
  const [last, setLast] = useState<string | null>(null);
  if (!allowed) {
    return (
      <>
        <h1>Approvals</h1>
        <EmptyState>Pending approvals and decisions need the operator role; this key is {identity?.role}.</EmptyState>
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
      <Loadable query={pending} label="pending approvals" isEmpty={(d) => d.count === 0} empty="No approvals pending.">
        {(data) => (
          <ul className="cards" aria-label="Pending approvals">
            {data.pending.map((item) => (
              <ApprovalItem key={item.taskId} item={item} onDecided={setLast} />
            ))}
          </ul>
        )}
      </Loadable>
    </>
  );
}
