import { Link } from 'react-router';
import { useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { RunsChartPanel } from '../components/charts/RunsChartPanel.js';
import { StatusBadge } from '../components/common.js';
import { Loadable, Section } from '../components/states.js';
import { Duration, RelativeTime, TimeLeft } from '../components/Time.js';
import type { IncidentRecord, PendingApprovals, RunStats } from '../lib/api-types.js';
import { segment } from '../lib/query-string.js';
import { slaDueAt } from '../lib/incidents.js';

const pct = (rate: number | null) => (rate === null ? '—' : `${Math.round(rate * 1000) / 10} %`);

function QueueDepth({ queue }: { queue: RunStats['queue'] }) {
  const items: Array<[string, number]> = [
    ['Ready to run', queue.ready],
    ['Held for approval', queue.held],
    ['Running', queue.running],
    ['Waiting to retry', queue.retrying],
  ];
  return (
    <ul className="stats" aria-label="Queue depth">
      {items.map(([label, value]) => (
        <li key={label} className="stat">
          <span className="stat-value">{value}</span>
          <span className="stat-label">{label}</span>
        </li>
      ))}
    </ul>
  );
}

function ByTypeTable({ stats }: { stats: RunStats }) {
  return (
    <div className="table-scroll" role="region" aria-label="Runs per task type" tabIndex={0}>
      <table className="wide">
        <caption>Per task type, last day</caption>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Runs</th>
            <th scope="col">Failure rate</th>
            <th scope="col">p50 duration</th>
            <th scope="col">p95 duration</th>
          </tr>
        </thead>
        <tbody>
          {stats.byType.map((t) => (
            <tr key={t.type}>
              <td className="nowrap">
                <Link to={`/runs?type=${encodeURIComponent(t.type)}`}>{t.type}</Link>
              </td>
              <td className="num">{t.created}</td>
              <td className="num">
                {pct(t.failureRate)} {t.failed > 0 && <span className="muted">({t.failed} of {t.finished})</span>}
              </td>
              <td>
                <Duration ms={t.p50DurationMs} />
              </td>
              <td>
                <Duration ms={t.p95DurationMs} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OpenIncidents() {
  const list = useApiQuery<{ total: number; incidents: IncidentRecord[] }>('/api/incidents?limit=50', { refetchInterval: 15_000 });
  return (
    <Loadable query={list} label="open incidents" isEmpty={(d) => d.total === 0} empty="No open incidents.">
      {(d) => (
        <>
          <ul className="linked" aria-label="Open incidents">
            {d.incidents.slice(0, 8).map((i) => (
              <li key={i.incidentId}>
                <StatusBadge status={i.severity} />
                <Link to={`/incidents/${segment(i.incidentId)}`}>{i.title}</Link>
                <span className="muted">
                  SLA <TimeLeft iso={slaDueAt(i)} />
                </span>
              </li>
            ))}
          </ul>
          {d.total > 8 && (
            <p>
              <Link to="/incidents">All {d.total} open incidents</Link>
            </p>
          )}
        </>
      )}
    </Loadable>
  );
}

function PendingApprovals() {
  const pending = useApiQuery<PendingApprovals>('/api/approvals/pending', { refetchInterval: 10_000 });
  return (
    <Loadable query={pending} label="pending approvals" isEmpty={(d) => d.count === 0} empty="No approvals pending.">
      {(d) => (
        <ul className="linked" aria-label="Pending approvals">
          {d.pending.slice(0, 8).map((p) => (
            <li key={p.taskId}>
              <Link to={`/approvals#approval-${segment(p.taskId)}`}>
                {p.type} <span className="mono">{p.runId}</span>
              </Link>
              <span className="muted">
                asked by {p.requestedBy ?? 'unknown'} <RelativeTime iso={p.requestedAt} />
              </span>
              {p.expiresAt && (
                <span className="muted">
                  · <TimeLeft iso={p.expiresAt} />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
    </Loadable>
  );
}

export function HomePage() {
  const { identity } = useSession();
  const hour = useApiQuery<RunStats>('/api/dashboard/run-stats?window=hour', { refetchInterval: 15_000 });
  const day = useApiQuery<RunStats>('/api/dashboard/run-stats?window=day', { refetchInterval: 60_000 });
  return (
    <>
      <h1>Overview</h1>
      <Section id="queue" title="Queue depth">
        <Loadable query={hour} label="queue depth">
          {(s) => <QueueDepth queue={s.queue} />}
        </Loadable>
      </Section>
      <Section id="activity" title="Run activity">
        <div className="grid">
          <Loadable query={hour} label="last hour">
            {(s) => <RunsChartPanel stats={s} title="Last hour" />}
          </Loadable>
          <Loadable query={day} label="last day">
            {(s) => <RunsChartPanel stats={s} title="Last day" />}
          </Loadable>
        </div>
        <Loadable query={day} label="task types" isEmpty={(s) => s.byType.length === 0} empty="No runs in the last day.">
          {(s) => <ByTypeTable stats={s} />}
        </Loadable>
      </Section>
      <div className="grid">
        <Section id="incidents" title="Open incidents">
          <OpenIncidents />
        </Section>
        {can(identity?.role, 'readApprovals') && (
          <Section id="approvals" title="Pending approvals">
            <PendingApprovals />
          </Section>
        )}
      </div>
    </>
  );
}
