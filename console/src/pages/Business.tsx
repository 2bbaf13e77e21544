import { Link } from 'react-router';
import { useApiMutation, useApiQuery } from '../api/hooks.js';
import { can } from '../auth/roles.js';
import { useSession } from '../auth/session.js';
import { ErrorNotice, StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import { describeCron } from '../lib/cron.js';
import { segment } from '../lib/query-string.js';

/** The fields of `GET /api/business/overview` the page reads. */
interface BusinessOverview {
  mission: unknown;
  missionUnknownReason?: string | null;
  registry: { path: string; status: string; problems: { path: string; message: string }[] };
  scheduler: { mode: string; modeChangedAt: string | null; modeChangedBy: string | null; cron: string; nextRunAt: string | null; cycleState: string; backoffActive: boolean; lastTriggeredAt: string | null };
  blockers: string[];
  verification: { runId: string | null; status: string | null; summary: string };
  nextActions: string[];
}
interface Candidates {
  count: number;
  candidates: Record<string, unknown>[];
}
interface Cycles {
  total: number;
  cycles: { cycleId: string; status?: string; startedAt?: string; createdAt?: string; runId?: string | null; selectedTask?: unknown; summary?: string }[];
}

function SchedulerSwitch({ mode }: { mode: string }) {
  const change = useApiMutation<{ action: 'pause' | 'resume' }, unknown>(() => '/api/business/scheduler');
  const paused = mode !== 'enabled';
  return (
    <div className="actions">
      <button type="button" className="secondary" disabled={change.isPending} onClick={() => change.mutate({ action: paused ? 'resume' : 'pause' })}>
        {paused ? 'Resume scheduler' : 'Pause scheduler'}
      </button>
      {change.error && <ErrorNotice error={change.error} />}
    </div>
  );
}

export function BusinessPage() {
  const { identity } = useSession();
  const overview = useApiQuery<BusinessOverview>('/api/business/overview', { refetchInterval: 30_000 });
  const candidates = useApiQuery<Candidates>('/api/business/candidates', { refetchInterval: 60_000 });
  const cycles = useApiQuery<Cycles>('/api/business/cycles?limit=20', { refetchInterval: 30_000 });
  return (
    <>
      <h1>Business</h1>
      <Loadable query={overview} label="business overview">
        {(o) => (
          <>
            <div className="grid">
              <div className="card">
                <h2>Scheduler</h2>
                <p>
                  <StatusBadge status={o.scheduler.mode} /> cycle {o.scheduler.cycleState}
                  {o.scheduler.backoffActive && ' (backing off after failures)'}
                </p>
                <p>
                  {describeCron(o.scheduler.cron, 'UTC') ?? o.scheduler.cron}; next <RelativeTime iso={o.scheduler.nextRunAt} />
                </p>
                {o.scheduler.modeChangedAt && (
                  <p className="hint">
                    Set to {o.scheduler.mode} by {o.scheduler.modeChangedBy} <RelativeTime iso={o.scheduler.modeChangedAt} />
                  </p>
                )}
                {can(identity?.role, 'switchBusinessScheduler') && <SchedulerSwitch mode={o.scheduler.mode} />}
              </div>
              <div className="card">
                <h2>Mission and registry</h2>
                {o.mission ? <RecordView value={o.mission} /> : <p className="muted">Mission unknown: {o.missionUnknownReason ?? 'not set'}.</p>}
                <p>
                  Registry <code className="wrap-anywhere">{o.registry.path}</code> <StatusBadge status={o.registry.status} />
                </p>
                {o.registry.problems.length > 0 && (
                  <ul aria-label="Registry problems">
                    {o.registry.problems.map((p) => (
                      <li key={`${p.path}${p.message}`}>{p.message}</li>
                    ))}
                  </ul>
                )}
              </div>
              <div className="card">
                <h2>Verification and next actions</h2>
                <p>
                  {o.verification.runId ? <Link to={`/runs/${segment(o.verification.runId)}`}>{o.verification.runId}</Link> : null} {o.verification.summary}
                </p>
                {o.blockers.length > 0 && (
                  <>
                    <h3>Blockers</h3>
                    <ul aria-label="Blockers">
                      {o.blockers.map((b) => (
                        <li key={b}>{b}</li>
                      ))}
                    </ul>
                  </>
                )}
                {o.nextActions.length > 0 && (
                  <>
                    <h3>Next actions</h3>
                    <ul aria-label="Next actions">
                      {o.nextActions.map((a) => (
                        <li key={a}>{a}</li>
                      ))}
                    </ul>
                  </>
                )}
              </div>
            </div>
          </>
        )}
      </Loadable>
      <Section id="candidates" title="Candidates">
        <Loadable query={candidates} label="candidates" isEmpty={(c) => c.count === 0} empty="No candidates: the registry lists none that can run now.">
          {(c) => <RecordView value={c.candidates} caption={`${c.count} candidates, best first`} />}
        </Loadable>
      </Section>
      <Section id="cycles" title="Cycles">
        <Loadable query={cycles} label="cycles" isEmpty={(c) => c.total === 0} empty="No business cycle has run yet.">
          {(c) => <RecordView value={c.cycles} caption={`${c.total} cycles, newest first`} />}
        </Loadable>
      </Section>
    </>
  );
}
