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
import { alreadyDecidedBy, approvalInputBody, approvalInputFields, decisionOutcome, quorumProgress, type ApprovalInputField } from '../lib/approval-decision.js';
import { segment } from '../lib/query-string.js';

interface Decision {
  taskId: string;
  decision: 'approved' | 'rejected';
  note: string;
  /** Approval only: what the approver adds to the replay's payload (the type's approval input schema). */
  input: Record<string, unknown> | null;
}

/** Why this identity may not decide the approval (the service's own rule), or null. */
function refusal(item: PendingApproval, actor: string, role: string): string | null {
  if (item.policy.approverRole === 'admin' && role !== 'admin') return `Deciding a ${item.type} approval needs the admin role; you are ${role}.`;
  if (!item.policy.allowSelfApproval && item.requesters.includes(actor)) {
    return `You asked for or shaped this run (its requesters: ${item.requesters.join(', ')}), and the approval policy for ${item.type} does not allow self-approval: another ${item.policy.approverRole} must decide it.`;
  }
  if (alreadyDecidedBy(item, actor)) {
    return `You approved this run; it waits for ${item.approvals.required - item.approvals.received} more approval${item.approvals.required - item.approvals.received === 1 ? '' : 's'} by others.`;
  }
  return null;
}

/** The approval input form: one field per property of the type's approval input schema. */
interface InputFieldsProps {
  taskId: string;
  fields: ApprovalInputField[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
}

function InputFields({ taskId, fields, values, onChange }: InputFieldsProps) {
  return (
    <div className="stack" role="group" aria-label="Approval input">
      <h3>Approve with input</h3>
      <p className="hint">Optional: what you fill in replaces the requested value in the approved run; blank keeps it.</p>
      {fields.map((f) => {
        const id = `input-${taskId}-${f.name}`;
        return (
          <div className="stack" key={f.name}>
            <label htmlFor={id}>{f.name}</label>
            {f.kind === 'boolean' ? (
              <select id={id} value={values[f.name] ?? ''} onChange={(e) => onChange(f.name, e.target.value)}>
                <option value="">(as requested)</option>
                <option value="true">true</option>
                <option value="false">false</option>
              </select>
            ) : (
              <input
                id={id}
                inputMode={f.kind === 'string' ? undefined : 'decimal'}
                value={values[f.name] ?? ''}
                maxLength={f.maxLength}
                onChange={(e) => onChange(f.name, e.target.value)}
              />
            )}
            {f.description && <span className="hint">{f.description}</span>}
          </div>
        );
      })}
    </div>
  );
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
  const [inputValues, setInputValues] = useState<Record<string, string>>({});
  const [showPayload, setShowPayload] = useState(false);
  const inputFields = approvalInputFields(item.approvalInputSchema);
  const decide = useApiMutation<Decision, DecisionAnswer>(
    (d) => `/api/approvals/${segment(d.taskId)}/decision`,
    (d) => ({ decision: d.decision, ...(d.note.trim() ? { note: d.note.trim() } : {}), ...(d.input ? { input: d.input } : {}) }),
  );
  const submit = (decision: Decision['decision']) =>
    decide.mutate(
      { taskId: item.taskId, decision, note, input: decision === 'approved' ? approvalInputBody(inputFields, inputValues) : null },
      { onSuccess: ({ body }) => onDecided(decisionOutcome(item.runId, body, decision)) },
    );
  const progress = quorumProgress(item);
  const noteId = `note-${item.taskId}`;
  const refused = identity ? refusal(item, identity.actor, identity.role) : null;
  const impact = item.impact;
  return (
    <li className="card" aria-label={`Approval ${item.runId}`} id={`approval-${segment(item.taskId)}`}>
      <div className="page-head">
        <h2>
          {item.type} — <Link to={`/runs/${segment(item.runId)}`}>{item.runId}</Link>
        </h2>
        {progress && <span className="badge" aria-label="Approvals received">{progress}</span>}
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
        <li>
          decided by {item.approvals.required > 1 ? `${item.approvals.required} different ` : ''}
          {item.policy.approverRole === 'admin' ? (item.approvals.required > 1 ? 'admins' : 'an admin') : item.approvals.required > 1 ? 'operators' : 'an operator'}
          {item.policy.approverGroups.length > 0 ? ` of ${item.policy.approverGroups.join(' or ')}` : ''}
        </li>
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
                {h.input && <div className="hint">with {Object.entries(h.input).map(([k, v]) => `${k}: ${String(v)}`).join(', ')}</div>}
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
          {inputFields.length > 0 && (
            <InputFields taskId={item.taskId} fields={inputFields} values={inputValues} onChange={(name, value) => setInputValues((v) => ({ ...v, [name]: value }))} />
          )}
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
          {last}
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
