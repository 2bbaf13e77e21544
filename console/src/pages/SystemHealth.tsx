import { useApiQuery } from '../api/hooks.js';
import { LeafTable, QueryView, StatusBadge } from '../components/common.js';

interface ExtendedHealth {
  status: string;
  statusReasons?: string[];
  [section: string]: unknown;
}

const SECTIONS = ['controlPlane', 'workers', 'repairs', 'dependencies', 'truthLayers', 'incidents'];

export function SystemHealthPage() {
  const health = useApiQuery<ExtendedHealth>('/api/health/extended', { refetchInterval: 15_000 });
  return (
    <>
      <h1>System health</h1>
      <QueryView query={health} label="extended health">
        {(data) => (
          <>
            <p>
              Status <StatusBadge status={data.status} />
            </p>
            {data.statusReasons && data.statusReasons.length > 0 && (
              <ul aria-label="Status reasons">
                {data.statusReasons.map((r) => (
                  <li key={r}>{r}</li>
                ))}
              </ul>
            )}
            <div className="grid">
              {SECTIONS.filter((s) => data[s] !== undefined).map((s) => (
                <LeafTable key={s} caption={s} value={data[s]} />
              ))}
            </div>
          </>
        )}
      </QueryView>
    </>
  );
}
