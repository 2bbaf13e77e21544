import { useApiQuery } from '../api/hooks.js';
import { StatusBadge } from '../components/common.js';
import { RecordView } from '../components/RecordView.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import type { ExtendedHealth } from '../lib/api-types.js';

/** The numeric fields of a section as tiles. */
function Stats({ label, values }: { label: string; values: object }) {
  const numbers = Object.entries(values).filter((entry): entry is [string, number] => typeof entry[1] === 'number');
  return (
    <ul className="stats" aria-label={label}>
      {numbers.map(([k, v]) => (
        <li key={k} className="stat">
          <span className="stat-value">{v}</span>
          <span className="stat-label">{k.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase()}</span>
        </li>
      ))}
    </ul>
  );
}

export function SystemHealthPage() {
  const health = useApiQuery<ExtendedHealth>('/api/health/extended', { refetchInterval: 15_000 });
  return (
    <>
      <h1>System health</h1>
      <Loadable query={health} label="extended health">
        {(h) => (
          <>
            <p aria-label="Overall status">
              Status <StatusBadge status={h.status} /> <span className="muted">checked <RelativeTime iso={h.checkedAt} /></span>
            </p>
            {h.statusReasons.length > 0 && (
              <ul aria-label="Status reasons">
                {h.statusReasons.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ul>
            )}
            <Section id="truth-layers" title="Truth layers">
              <div className="grid">
                <div className="card">
                  <h3>Configured</h3>
                  <p>
                    <StatusBadge status={h.truthLayers.configured.status} /> {h.truthLayers.configured.summary}
                  </p>
                </div>
                <div className="card">
                  <h3>Observed</h3>
                  <p>
                    <StatusBadge status={h.truthLayers.observed.status} /> {h.truthLayers.observed.summary}
                  </p>
                  <p className="hint">Service mode: {h.truthLayers.observed.serviceMode}</p>
                </div>
              </div>
            </Section>
            <Section id="control-plane" title="Control plane">
              <p>
                Routing <StatusBadge status={h.controlPlane.routing.status} />
                {h.controlPlane.routing.lanesWithoutSpawnableAgent.length > 0 && <> lanes without a spawnable agent: {h.controlPlane.routing.lanesWithoutSpawnableAgent.join(', ')}</>}
              </p>
              <Stats label="Queue" values={h.controlPlane.queue} />
            </Section>
            <Section id="workers" title="Workers">
              <Stats label="Workers" values={h.workers} />
            </Section>
            <Section id="dependencies" title="Dependencies">
              <div className="grid">
                <div className="card">
                  <h3>
                    Persistence <StatusBadge status={h.dependencies.persistence.status} />
                  </h3>
                  <RecordView value={h.dependencies.persistence} omit={['status']} />
                </div>
                <div className="card">
                  <h3>Knowledge index</h3>
                  <RecordView value={h.dependencies.knowledge} />
                </div>
                <div className="card">
                  <h3>
                    Code host <StatusBadge status={h.dependencies.codeHost.status} />
                  </h3>
                  <p>{h.dependencies.codeHost.summary}</p>
                  <RecordView value={h.dependencies.codeHost} omit={['status', 'summary']} />
                </div>
              </div>
            </Section>
            <div className="grid">
              <Section id="repairs" title="Repairs">
                <RecordView value={h.repairs} />
              </Section>
              <Section id="health-incidents" title="Incidents">
                <p>
                  <StatusBadge status={h.incidents.overallStatus} /> {h.incidents.openCount} open, {h.incidents.activeCount} active
                </p>
                <Stats label="Open incidents by severity" values={h.incidents.bySeverity} />
              </Section>
            </div>
          </>
        )}
      </Loadable>
    </>
  );
}
