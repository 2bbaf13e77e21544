import { lazy, Suspense } from 'react';
import { useApiQuery } from '../api/hooks.js';
import { StatusBadge } from '../components/common.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import type { GraphEdge } from '../components/graph/LayeredGraph.js';
import { ScrollTable } from '../components/ScrollTable.js';
import type { Topology } from '../lib/api-types.js';

// The graph libraries load with this page's graph only.
const LayeredGraph = lazy(() => import('../components/graph/LayeredGraph.js'));

/** The fields of `GET /api/agents/overview` the page reads. */
interface AgentsOverview {
  generatedAt: string;
  agents: {
    id: string;
    name?: string;
    orchestratorTask: string;
    spawnedWorkerCapable: boolean;
    serviceExpected: boolean;
    serviceAvailable: boolean;
    hostServiceStatus: string;
    hostServiceReason?: string | null;
    serviceUnitName: string | null;
    lifecycleMode: string;
    modelTier: string;
    memory: { totalRuns: number; lastRunAt: string | null; successfulRuns?: number; failedRuns?: number };
    capability?: { currentReadiness?: unknown; ultraGapSummary?: string };
  }[];
  topology?: Topology;
  serviceGaps: { agentId: string; unit: string; reason: string; detail: string }[];
}

function readiness(value: unknown): string {
  if (value && typeof value === 'object' && 'status' in value) return String((value as { status: unknown }).status);
  return typeof value === 'string' ? value : 'unknown';
}

export function AgentsPage() {
  const overview = useApiQuery<AgentsOverview>('/api/agents/overview', { refetchInterval: 30_000 });
  return (
    <>
      <h1>Agents</h1>
      <Loadable query={overview} label="agents" isEmpty={(d) => d.agents.length === 0} empty="No agents are declared.">
        {(d) => {
          const nodes = d.topology?.nodes ?? [];
          const edges: GraphEdge[] = (d.topology?.edges ?? []).map((e) => ({ from: e.from, to: e.to, label: e.relationship }));
          return (
            <>
              <Section id="agent-readiness" title="Agent readiness">
                <ScrollTable label="Agent readiness" caption={`${d.agents.length} ${d.agents.length === 1 ? 'agent' : 'agents'}`} columns={['Agent', 'Task', 'Readiness', 'Lifecycle', 'Host service', 'Runs', 'Last run']} className="wide">
                  {d.agents.map((a) => (
                    <tr key={a.id}>
                      <td>
                        <strong className="id">{a.id}</strong>
                        {a.name && <div className="hint">{a.name}</div>}
                      </td>
                      <td>
                        <code>{a.orchestratorTask}</code>
                      </td>
                      <td>
                        <StatusBadge status={readiness(a.capability?.currentReadiness)} />
                        {a.capability?.ultraGapSummary && <div className="hint">{a.capability.ultraGapSummary}</div>}
                      </td>
                      <td>
                        {a.lifecycleMode}
                        <div className="hint">{a.spawnedWorkerCapable ? 'spawns workers' : 'no spawned worker'}</div>
                      </td>
                      <td>
                        <StatusBadge status={a.hostServiceStatus} />
                        {a.serviceUnitName && <div className="hint mono">{a.serviceUnitName}</div>}
                        {a.hostServiceReason && <div className="hint">{a.hostServiceReason}</div>}
                      </td>
                      <td className="num">
                        {a.memory.totalRuns}
                        {a.memory.failedRuns ? <span className="muted"> ({a.memory.failedRuns} failed)</span> : null}
                      </td>
                      <td className="nowrap">
                        <RelativeTime iso={a.memory.lastRunAt} />
                      </td>
                    </tr>
                  ))}
                </ScrollTable>
                {d.serviceGaps.length > 0 && (
                  <>
                    <h3>Service gaps</h3>
                    <ul aria-label="Service gaps">
                      {d.serviceGaps.map((g) => (
                        <li key={g.agentId}>
                          <strong>{g.agentId}</strong>: <code>{g.unit}</code> {g.reason} ({g.detail})
                        </li>
                      ))}
                    </ul>
                  </>
                )}
              </Section>
              <Section id="topology" title="Topology">
                {nodes.length === 0 ? (
                  <p className="empty">The service reports no topology.</p>
                ) : (
                  <>
                    <p className="hint">
                      Orchestrator → task → agent → skill; {nodes.length} nodes, {edges.length} edges ({d.topology?.status ?? 'complete'}).
                    </p>
                    <Suspense fallback={<p className="loading">Drawing topology…</p>}>
                      <LayeredGraph nodes={nodes} edges={edges} label={`Agent topology: ${nodes.length} nodes and ${edges.length} edges`} />
                    </Suspense>
                  </>
                )}
              </Section>
            </>
          );
        }}
      </Loadable>
    </>
  );
}
