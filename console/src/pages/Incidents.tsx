import { useState, type FormEvent } from 'react';
import { Link, useParams } from 'react-router';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { CATALOG_PATH, remediationTaskTypes, type Catalog } from '../lib/catalog.js';
import { useFilterParams } from '../lib/use-filter-params.js';
import { ErrorNotice, QueryView, StatusBadge } from '../components/common.js';
import { FilterSelect } from '../components/FilterSelect.js';
import { ScrollTable } from '../components/ScrollTable.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime, TimeLeft } from '../components/Time.js';
import type { IncidentRecord } from '../lib/api-types.js';
import { offersAcknowledge, slaDueAt } from '../lib/incidents.js';
import { segment, toQueryString } from '../lib/query-string.js';

const STATUSES = ['active', 'watching', 'resolved'];
const SEVERITIES = ['critical', 'warning', 'info'];
const PAGE_SIZE = 25;

type Incident = IncidentRecord;

interface RemediationOutcome {
  status: 'queued' | 'awaiting-approval' | 'duplicate-suppressed';
  taskType: string;
  runId: string;
  approvalRequired: boolean;
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
        <FilterSelect id="inc-status" label="Status" value={status} emptyLabel="open" options={STATUSES} onChange={(v) => update({ status: v })} />
        <FilterSelect id="inc-severity" label="Severity" value={severity} emptyLabel="any" options={SEVERITIES} onChange={(v) => update({ severity: v })} />
        <div className="filter-field">
          <label htmlFor="inc-class">Classification</label>
          <input id="inc-class" defaultValue={classification} onBlur={(e) => update({ classification: e.target.value.trim() })} placeholder="any" />
        </div>
        <label className="inline">
          <input type="checkbox" checked={includeResolved} onChange={(e) => update({ includeResolved: e.target.checked ? 'true' : null })} />{' '}
          Include resolved
        </label>
      </form>
      <Loadable query={list} label="incidents" isEmpty={(d) => d.total === 0} empty="No incidents match these filters.">
        {(data) => (
          <>
            <ScrollTable
              label="Incidents"
              caption={`${data.total} ${data.total === 1 ? 'incident' : 'incidents'}, most urgent first${data.total > 0 ? `; showing ${data.offset + 1}–${data.offset + data.incidents.length}` : ''}`}
              columns={['Severity', 'Title', 'SLA', 'Status', 'Owner', 'Acknowledged', 'Last seen']}
              className="wide stack-on-phone"
            >
              {/* The service lists by urgency: open first, then severity, then the latest seen. */}
              {data.incidents.map((i) => (
                <tr key={i.incidentId}>
                  <td>
                    <StatusBadge status={i.severity} />
                  </td>
                  <td className="col-title full">
                    <Link to={`/incidents/${segment(i.incidentId)}`}>{i.title}</Link>
                    <div className="hint">{i.classification}</div>
                  </td>
                  <td className="nowrap" data-label="SLA">
                    <TimeLeft iso={slaDueAt(i)} />
                  </td>
                  <td>
                    <StatusBadge status={i.status} />
                  </td>
                  <td data-label="Owner">{i.owner ?? <span className="muted">none</span>}</td>
                  <td data-label="Acknowledged">{i.acknowledged ? `by ${i.acknowledgedBy ?? '—'}` : 'no'}</td>
                  <td className="nowrap" data-label="Last seen">
                    <RelativeTime iso={i.lastSeenAt} />
                  </td>
                </tr>
              ))}
            </ScrollTable>
            <div className="pager">
              <button type="button" className="secondary" disabled={offset === 0} onClick={() => update({ offset: String(Math.max(0, offset - PAGE_SIZE)) })}>
                Previous page
              </button>
              <button type="button" className="secondary" disabled={offset + data.incidents.length >= data.total} onClick={() => update({ offset: String(offset + PAGE_SIZE) })}>
                Next page
              </button>
            </div>
          </>
        )}
      </Loadable>
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
      {can(identity?.role, 'acknowledgeIncident') && offersAcknowledge(incident) && (
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

function runLink(runId: string | null) {
  return runId ? <Link to={`/runs/${segment(runId)}`}>{runId}</Link> : <span className="muted">—</span>;
}

function HistoryTimeline({ incident }: { incident: Incident }) {
  if (incident.history.length === 0) return <p className="empty">No history yet.</p>;
  return (
    <ol className="timeline" aria-label="Incident history">
      {[...incident.history].reverse().map((h, index) => (
        <li key={`${h.at}-${index}`}>
          <div>
            <strong>{h.kind.replace(/-/g, ' ')}</strong> — {h.summary}
          </div>
          <div className="when">
            <RelativeTime iso={h.at} /> by {h.actor}
          </div>
        </li>
      ))}
    </ol>
  );
}

function IncidentDetail({ i }: { i: Incident }) {
  const due = slaDueAt(i);
  return (
    <>
      <div className="page-head">
        <h1>{i.title}</h1>
        <StatusBadge status={i.severity} />
        <StatusBadge status={i.status} />
      </div>
      <ul className="meta">
        <li>{i.classification}</li>
        <li>
          SLA <TimeLeft iso={due} /> ({i.policy.targetSlaMinutes} min target)
        </li>
        <li aria-label="Acknowledgement">
          {i.acknowledged ? (
            <>
              acknowledged by {i.acknowledgedBy ?? '—'} <RelativeTime iso={i.acknowledgedAt} />
            </>
          ) : (
            'not acknowledged'
          )}
        </li>
        <li aria-label="Current owner">owner {i.owner ?? 'none'}</li>
        <li>
          first seen <RelativeTime iso={i.firstSeenAt} />, last seen <RelativeTime iso={i.lastSeenAt} /> ({i.occurrences} times)
        </li>
      </ul>
      {i.summary && <p>{i.summary}</p>}
      <IncidentActions incident={i} />
      <div className="grid">
        <div className="card">
          <h2>Remediation</h2>
          <p>
            <StatusBadge status={i.remediation.status} /> {i.remediation.nextAction}
          </p>
          {i.remediation.blockers.length > 0 && (
            <ul aria-label="Blockers">
              {i.remediation.blockers.map((b) => (
                <li key={b}>{b}</li>
              ))}
            </ul>
          )}
          {i.remediationPlan.length > 0 && (
            <ol aria-label="Remediation plan">
              {i.remediationPlan.map((step) => (
                <li key={step.step}>
                  {step.title} <StatusBadge status={step.status} /> {step.taskType && <code>{step.taskType}</code>}
                </li>
              ))}
            </ol>
          )}
        </div>
        <div className="card">
          <h2>Verification and escalation</h2>
          <p>
            Verification <StatusBadge status={i.verification.status} /> {i.verification.summary}
          </p>
          <p>
            Escalation level {i.escalation.level}
            {i.escalation.summary ? `: ${i.escalation.summary}` : ''}
            {i.escalation.dueAt && (
              <>
                {' '}
                · due <RelativeTime iso={i.escalation.dueAt} />
              </>
            )}
          </p>
          {i.recommendedSteps.length > 0 && (
            <>
              <h3>Recommended steps</h3>
              <ol aria-label="Recommended steps">
                {i.recommendedSteps.map((s) => (
                  <li key={s}>{s}</li>
                ))}
              </ol>
            </>
          )}
        </div>
      </div>
      <Section id="history" title="History">
        <HistoryTimeline incident={i} />
      </Section>
      <Section id="remediation-tasks" title="Remediation tasks and repairs">
        {i.remediationTasks.length === 0 ? (
          <p className="empty">No remediation task has run for this incident.</p>
        ) : (
          <ScrollTable label="Remediation tasks" caption="Remediation tasks" columns={['Task', 'Role', 'Status', 'Run', 'Requested']} className="wide">
            {i.remediationTasks.map((t) => (
              <tr key={t.taskId}>
                <td className="nowrap">{t.taskType}</td>
                <td>
                  {t.role} #{t.attempt}
                </td>
                <td>
                  <StatusBadge status={t.status} />
                </td>
                <td className="wrap-anywhere">{runLink(t.replayRunId ?? t.runId)}</td>
                <td>
                  <RelativeTime iso={t.requestedAt} /> by {t.requestedBy}
                </td>
              </tr>
            ))}
          </ScrollTable>
        )}
        <div className="grid">
          <div>
            <h3>Linked runs</h3>
            {i.linkedRunIds.length === 0 ? (
              <p className="muted">None.</p>
            ) : (
              <ul aria-label="Linked runs">
                {i.linkedRunIds.map((r) => (
                  <li key={r} className="wrap-anywhere">
                    {runLink(r)}
                  </li>
                ))}
              </ul>
            )}
          </div>
          <div>
            <h3>Linked repairs</h3>
            {i.linkedRepairIds.length === 0 ? (
              <p className="muted">None.</p>
            ) : (
              <ul aria-label="Linked repairs">
                {i.linkedRepairIds.map((r) => (
                  <li key={r}>
                    <code>{r}</code>
                  </li>
                ))}
              </ul>
            )}
          </div>
        </div>
      </Section>
      <Section id="policy" title="Policy executions">
        {i.policyExecutions.length === 0 ? (
          <p className="empty">Policy {i.policy.policyId} has not acted on this incident.</p>
        ) : (
          <ScrollTable label="Policy executions" caption={`Policy ${i.policy.policyId}`} columns={['When', 'Action', 'Outcome', 'Summary', 'Run']} className="wide">
            {i.policyExecutions.map((p) => (
              <tr key={p.executionId}>
                <td className="nowrap">
                  <RelativeTime iso={p.at} />
                </td>
                <td className="nowrap">{p.action}</td>
                <td>{p.outcome}</td>
                <td>{p.summary}</td>
                <td className="wrap-anywhere">{runLink(p.runId)}</td>
              </tr>
            ))}
          </ScrollTable>
        )}
      </Section>
      <div className="grid">
        <ScrollTable label="Acknowledgements" caption="Acknowledgements" columns={['When', 'Who', 'Note']} empty={i.acknowledgements.length === 0 ? 'None yet.' : undefined}>
          {i.acknowledgements.map((a, index) => (
            <tr key={`${a.at}-${index}`}>
              <td className="nowrap">
                <RelativeTime iso={a.at} />
              </td>
              <td>{a.actor}</td>
              <td>{a.note ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </ScrollTable>
        <ScrollTable label="Ownership" caption="Ownership" columns={['When', 'Owner', 'Set by', 'Note']} empty={i.ownershipHistory.length === 0 ? 'No owner set yet.' : undefined}>
          {i.ownershipHistory.map((o, index) => (
            <tr key={`${o.at}-${index}`}>
              <td className="nowrap">
                <RelativeTime iso={o.at} />
              </td>
              <td>
                {o.owner}
                {o.previousOwner && <span className="muted"> (was {o.previousOwner})</span>}
              </td>
              <td>
                {o.actor} ({o.source})
              </td>
              <td>{o.note ?? <span className="muted">—</span>}</td>
            </tr>
          ))}
        </ScrollTable>
      </div>
    </>
  );
}

export function IncidentDetailPage() {
  const { incidentId = '' } = useParams();
  const incident = useApiQuery<Incident>(`/api/incidents/${segment(incidentId)}`, { refetchInterval: 10_000 });
  return (
    <>
      <p>
        <Link to="/incidents">All incidents</Link>
      </p>
      <Loadable query={incident} label="incident">
        {(i) => <IncidentDetail i={i} />}
      </Loadable>
    </>
  );
}
