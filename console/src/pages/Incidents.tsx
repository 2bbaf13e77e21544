import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { CATALOG_PATH, remediationTaskTypes, type Catalog } from '../lib/catalog.js';
import { useFilterParams } from '../lib/use-filter-params.js';
import { ErrorNotice, LeafTable, QueryView, StatusBadge } from '../components/common.js';
import { segment, toQueryString } from '../lib/query-string.js';

const STATUSES = ['active', 'watching', 'resolved'];
const SEVERITIES = ['critical', 'warning', 'info'];
const PAGE_SIZE = 25;

interface Incident {
  incidentId: string;
  classification: string;
  severity: string;
  status: string;
  title: string;
  firstSeenAt: string;
  lastSeenAt: string;
  acknowledged: boolean;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  owner: string | null;
  recommendedSteps: string[];
  remediation?: Record<string, unknown>;
  verification?: Record<string, unknown>;
  escalation?: Record<string, unknown>;
}

interface RemediationOutcome {
  status: 'queued' | 'awaiting-approval' | 'duplicate-suppressed';
  taskType: string;
  runId: string;
  approvalRequired: boolean;
}

interface IncidentHistory {
  history: Record<string, unknown>[];
  acknowledgements: Record<string, unknown>[];
  ownershipHistory: Record<string, unknown>[];
  policyExecutions: Record<string, unknown>[];
  remediationTasks: Record<string, unknown>[];
  remediationLifecycle?: Record<string, unknown>;
}

export function IncidentsPage() {
  const { params, update, offset } = useFilterParams();
  const status = params.get('status') ?? '';
  const severity = params.get('severity') ?? '';
  const classification = params.get('classification') ?? '';
  const includeResolved = params.get('includeResolved') === 'true';
  const list = useApiQuery<{ total: number; limit: number; offset: number; incidents: Incident[] }>(
    `/api/incidents${toQueryString({ status, severity, classification, includeResolved: includeResolved ? 'true' : null, limit: PAGE_SIZE, offset })}`,
    { refetchInterval: 10_000 },
  );

  return (
    <>
      <h1>Incidents</h1>
      <form className="filters" aria-label="Incident filters" onSubmit={(e) => e.preventDefault()}>
        <label htmlFor="inc-status">Status</label>
        <select id="inc-status" value={status} onChange={(e) => update({ status: e.target.value })}>
          <option value="">open</option>
          {STATUSES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <label htmlFor="inc-severity">Severity</label>
        <select id="inc-severity" value={severity} onChange={(e) => update({ severity: e.target.value })}>
          <option value="">any</option>
          {SEVERITIES.map((s) => (
            <option key={s}>{s}</option>
          ))}
        </select>
        <label htmlFor="inc-class">Classification</label>
        <input id="inc-class" defaultValue={classification} onBlur={(e) => update({ classification: e.target.value.trim() })} placeholder="any" />
        <label className="inline">
          <input type="checkbox" checked={includeResolved} onChange={(e) => update({ includeResolved: e.target.checked ? 'true' : null })} />{' '}
          Include resolved
        </label>
      </form>
      <QueryView query={list} label="incidents">
        {(data) => (
          <>
            <table>
              <caption>
                {data.total} incidents{data.total > 0 ? `, showing ${data.offset + 1}–${data.offset + data.incidents.length}` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Title</th>
                  <th scope="col">Severity</th>
                  <th scope="col">Status</th>
                  <th scope="col">Classification</th>
                  <th scope="col">Acknowledged</th>
                  <th scope="col">Owner</th>
                  <th scope="col">Last seen</th>
                </tr>
              </thead>
              <tbody>
                {data.incidents.map((i) => (
                  <tr key={i.incidentId}>
                    <td>
                      <Link to={`/incidents/${segment(i.incidentId)}`}>{i.title}</Link>
                    </td>
                    <td>
                      <StatusBadge status={i.severity} />
                    </td>
                    <td>{i.status}</td>
                    <td>{i.classification}</td>
                    <td>{i.acknowledged ? `by ${i.acknowledgedBy ?? '—'}` : 'no'}</td>
                    <td>{i.owner ?? '—'}</td>
                    <td>{i.lastSeenAt}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            <div className="pager">
              <button type="button" disabled={offset === 0} onClick={() => update({ offset: String(Math.max(0, offset - PAGE_SIZE)) })}>
                Previous page
              </button>
              <button type="button" disabled={offset + data.incidents.length >= data.total} onClick={() => update({ offset: String(offset + PAGE_SIZE) })}>
                Next page
              </button>
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}

function IncidentActions({ incident }: { incident: Incident }) {
  const { identity } = useSession();
  const [ackNote, setAckNote] = useState('');
  const [owner, setOwner] = useState('');
  const [ownerNote, setOwnerNote] = useState('');
  const path = `/api/incidents/${segment(incident.incidentId)}`;
  const acknowledge = useApiMutation<{ note: string }, Incident>(
    () => `${path}/acknowledge`,
    (b) => (b.note.trim() ? { note: b.note.trim() } : {}),
  );
  const setOwnerMutation = useApiMutation<{ owner: string; note: string }, Incident>(
    () => `${path}/owner`,
    (b) => (b.note.trim() ? { owner: b.owner.trim(), note: b.note.trim() } : { owner: b.owner.trim() }),
  );

  const submitOwner = (event: FormEvent) => {
    event.preventDefault();
    setOwnerMutation.mutate({ owner, note: ownerNote }, { onSuccess: () => setOwner('') });
  };

  return (
    <div className="grid">
      {can(identity?.role, 'acknowledgeIncident') && !incident.acknowledged && (
        <form
          className="stack"
          aria-label="Acknowledge incident"
          onSubmit={(e) => {
            e.preventDefault();
            acknowledge.mutate({ note: ackNote });
          }}
        >
          <label htmlFor="ack-note">Acknowledgement note</label>
          <input id="ack-note" value={ackNote} maxLength={2000} onChange={(e) => setAckNote(e.target.value)} />
          <button type="submit" disabled={acknowledge.isPending}>
            Acknowledge
          </button>
          {acknowledge.error && <ErrorNotice error={acknowledge.error} />}
        </form>
      )}
      {can(identity?.role, 'setIncidentOwner') && (
        <form className="stack" aria-label="Set owner" onSubmit={submitOwner}>
          <label htmlFor="owner-name">Owner</label>
          <input id="owner-name" value={owner} required maxLength={200} onChange={(e) => setOwner(e.target.value)} />
          <label htmlFor="owner-note">Ownership note</label>
          <input id="owner-note" value={ownerNote} maxLength={2000} onChange={(e) => setOwnerNote(e.target.value)} />
          <button type="submit" disabled={setOwnerMutation.isPending || owner.trim() === ''}>
            Set owner
          </button>
          {setOwnerMutation.error && <ErrorNotice error={setOwnerMutation.error} />}
        </form>
      )}
      {can(identity?.role, 'remediateIncident') && incident.status !== 'resolved' && <RemediationForm path={path} />}
    </div>
  );
}

/** Starts a manual remediation; the task types offered are the catalog's remediation lanes. */
function RemediationForm({ path }: { path: string }) {
  const catalog = useApiQuery<Catalog>(CATALOG_PATH);
  const types = remediationTaskTypes(catalog.data?.tasks ?? []);
  const [chosen, setChosen] = useState('');
  const taskType = types.includes(chosen) ? chosen : (types[0] ?? '');
  const [remediationNote, setRemediationNote] = useState('');
  const remediate = useApiMutation<{ taskType: string; note: string }, RemediationOutcome>(
    () => `${path}/remediate`,
    (b) => (b.note.trim() ? { taskType: b.taskType, note: b.note.trim() } : { taskType: b.taskType }),
  );

  return (
    <QueryView query={catalog} label="remediation task types">
      {() => (
        <form
          className="stack"
          aria-label="Start remediation"
          onSubmit={(e) => {
            e.preventDefault();
            remediate.mutate({ taskType, note: remediationNote });
          }}
        >
          <label htmlFor="remediation-type">Remediation task</label>
          <select id="remediation-type" value={taskType} onChange={(e) => setChosen(e.target.value)}>
            {types.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
          <label htmlFor="remediation-note">Remediation note</label>
          <input id="remediation-note" value={remediationNote} maxLength={2000} onChange={(e) => setRemediationNote(e.target.value)} />
          <button type="submit" disabled={remediate.isPending || taskType === ''}>
            Start remediation
          </button>
          {remediate.error && <ErrorNotice error={remediate.error} />}
          {remediate.data && (
            <p role="status" className="outcome">
              HTTP {remediate.data.status} {remediate.data.body.status}: {remediate.data.body.taskType} run{' '}
              <Link to={`/runs/${segment(remediate.data.body.runId)}`}>{remediate.data.body.runId}</Link>
              {remediate.data.body.approvalRequired ? ' (held for approval)' : ''}
            </p>
          )}
        </form>
      )}
    </QueryView>
  );
}

export function IncidentDetailPage() {
  const { incidentId = '' } = useParams();
  const path = `/api/incidents/${segment(incidentId)}`;
  const incident = useApiQuery<Incident>(path);
  const history = useApiQuery<IncidentHistory>(`${path}/history`);
  return (
    <>
      <p>
        <Link to="/incidents">All incidents</Link>
      </p>
      <QueryView query={incident} label="incident">
        {(i) => (
          <>
            <h1>{i.title}</h1>
            <p>
              <StatusBadge status={i.severity} /> {i.status} · {i.classification} ·{' '}
              <span aria-label="Acknowledgement">{i.acknowledged ? `acknowledged by ${i.acknowledgedBy ?? '—'} at ${i.acknowledgedAt ?? '—'}` : 'not acknowledged'}</span> ·{' '}
              <span aria-label="Owner">owner {i.owner ?? 'none'}</span>
            </p>
            <IncidentActions incident={i} />
            <div className="grid">
              <LeafTable caption="Seen" value={{ firstSeenAt: i.firstSeenAt, lastSeenAt: i.lastSeenAt }} />
              {i.remediation && <LeafTable caption="Remediation" value={i.remediation} />}
              {i.verification && <LeafTable caption="Verification" value={i.verification} />}
              {i.escalation && <LeafTable caption="Escalation" value={i.escalation} />}
            </div>
            {i.recommendedSteps.length > 0 && (
              <ol aria-label="Recommended steps">
                {i.recommendedSteps.map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ol>
            )}
          </>
        )}
      </QueryView>
      <h2>History</h2>
      <QueryView query={history} label="history">
        {(h) => (
          <>
            <LeafTable caption="History" value={h.history} prefix="history" />
            <LeafTable caption="Acknowledgements" value={h.acknowledgements} prefix="acknowledgements" />
            <LeafTable caption="Ownership" value={h.ownershipHistory} prefix="ownershipHistory" />
            <LeafTable caption="Policy executions" value={h.policyExecutions} prefix="policyExecutions" />
            <LeafTable caption="Remediation tasks" value={h.remediationTasks} prefix="remediationTasks" />
            {h.remediationLifecycle && <LeafTable caption="Remediation lifecycle" value={h.remediationLifecycle} />}
          </>
        )}
      </QueryView>
    </>
  );
}
