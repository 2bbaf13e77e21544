import { useApiQuery } from '../api/hooks.js';
import { LeafTable, QueryView, StatusBadge } from '../components/common.js';
import { formatScalar } from '../lib/leaves.js';

interface Dashboard {
  recentTasks?: { handledAt: string; type: string; result: string; message?: string }[];
  [section: string]: unknown;
}

interface AgentsOverview {
  generatedAt: string;
  agents: {
    id: string;
    orchestratorTask: string;
    spawnedWorkerCapable: boolean;
    serviceExpected: boolean;
    serviceAvailable: boolean;
    hostServiceStatus: string;
    lifecycleMode: string;
    memory: { totalRuns: number; lastRunAt: string | null };
    capability?: { currentReadiness?: unknown };
  }[];
  serviceGaps: { agentId: string; unit: string; reason: string; detail: string }[];
}

const DASHBOARD_SECTIONS = ['health', 'queue', 'approvals', 'incidents', 'selfHealing', 'governance', 'accounting', 'persistence'];

function readiness(value: unknown): string {
  if (value && typeof value === 'object' && 'status' in value) return formatScalar((value as { status: unknown }).status);
  return formatScalar(value ?? null);
}

export function HomePage() {
  const dashboard = useApiQuery<Dashboard>('/api/dashboard/overview', { refetchInterval: 15_000 });
  const agents = useApiQuery<AgentsOverview>('/api/agents/overview');
  return (
    <>
      <h1>Overview</h1>
      <section aria-labelledby="dashboard-heading">
        <h2 id="dashboard-heading">Dashboard</h2>
        <QueryView query={dashboard} label="dashboard">
          {(data) => (
            <>
              <div className="grid">
                {DASHBOARD_SECTIONS.filter((s) => data[s] !== undefined).map((s) => (
                  <LeafTable key={s} caption={s} value={data[s]} />
                ))}
              </div>
              <table>
                <caption>Recent tasks</caption>
                <thead>
                  <tr>
                    <th scope="col">Handled at</th>
                    <th scope="col">Type</th>
                    <th scope="col">Result</th>
                    <th scope="col">Message</th>
                  </tr>
                </thead>
                <tbody>
                  {(data.recentTasks ?? []).map((t, i) => (
                    <tr key={`${t.handledAt}-${i}`}>
                      <td>{t.handledAt}</td>
                      <td>{t.type}</td>
                      <td>
                        <StatusBadge status={t.result} />
                      </td>
                      <td>{t.message ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )}
        </QueryView>
      </section>
      <section aria-labelledby="agents-heading">
        <h2 id="agents-heading">Agent readiness</h2>
        <QueryView query={agents} label="agents">
          {(data) => (
            <>
              <table>
                <caption>{data.agents.length} agents</caption>
                <thead>
                  <tr>
                    <th scope="col">Agent</th>
                    <th scope="col">Task</th>
                    <th scope="col">Spawned worker</th>
                    <th scope="col">Service expected</th>
                    <th scope="col">Host service</th>
                    <th scope="col">Readiness</th>
                    <th scope="col">Runs</th>
                  </tr>
                </thead>
                <tbody>
                  {data.agents.map((a) => (
                    <tr key={a.id}>
                      <td>{a.id}</td>
                      <td>{a.orchestratorTask}</td>
                      <td>{formatScalar(a.spawnedWorkerCapable)}</td>
                      <td>{formatScalar(a.serviceExpected)}</td>
                      <td>{a.hostServiceStatus}</td>
                      <td>{readiness(a.capability?.currentReadiness)}</td>
                      <td>{a.memory.totalRuns}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
              {data.serviceGaps.length > 0 && (
                <ul aria-label="Service gaps">
                  {data.serviceGaps.map((g) => (
                    <li key={g.agentId}>
                      {g.agentId}: {g.unit} {g.reason} ({g.detail})
                    </li>
                  ))}
                </ul>
              )}
            </>
          )}
        </QueryView>
      </section>
    </>
  );
}
