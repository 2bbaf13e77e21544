import { lazy, Suspense, useMemo } from 'react';
import { useApiQuery } from '../api/hooks.js';
import { StatusBadge } from '../components/common.js';
import { Loadable, Section } from '../components/states.js';
import { RelativeTime } from '../components/Time.js';
import { ScrollTable } from '../components/ScrollTable.js';
import type { Topology } from '../lib/api-types.js';
import { hostServiceInWords, readinessInWords } from '../lib/agent-words.js';
import { humanize } from '../lib/labels.js';
import { groupByRole, type RoleAgent } from '../lib/role-topology.js';

// The graph libraries load with this page's drawing only.
const RoleTopologyDrawing = lazy(() => import('../components/graph/RoleTopologyDrawing.js'));

/** The fields of `GET /api/agents/overview` the page reads. */
interface AgentEntry {
  id: string;
  name?: string;
  lanes?: string[];
  orchestratorTask: string;
  allowedSkills?: string[];
  hostServiceStatus: string;
  hostServiceReason?: string | null;
  serviceUnitName: string | null;
  memory: { totalRuns: number; lastRunAt: string | null; successfulRuns?: number; failedRuns?: number };
  capability?: { role?: string; spine?: string; currentReadiness?: unknown; ultraGapSummary?: string };
}

interface AgentsOverview {
  generatedAt: string;
  agents: AgentEntry[];
  topology?: Topology;
  serviceGaps: { agentId: string; unit: string; reason: string; detail: string }[];
}

function readiness(value: unknown): string {
  if (value && typeof value === 'object' && 'status' in value) return String((value as { status: unknown }).status);
  return typeof value === 'string' ? value : 'unknown';
}

/** An agent as the topology groups it: by its role family (the capability's spine). */
function roleAgentOf(a: AgentEntry): RoleAgent {
  return {
    id: a.id,
    role: a.capability?.spine ?? 'other',
    lanes: a.lanes ?? [a.orchestratorTask],
    skills: a.allowedSkills?.length ?? 0,
    readiness: readiness(a.capability?.currentReadiness),
  };
}

function AgentRow({ a }: { a: AgentEntry }) {
  const level = readiness(a.capability?.currentReadiness);
  return (
    <tr>
      <td className="full">
        <strong className="id">{a.id}</strong>
        <div className="hint">{[a.name, a.capability?.role].filter(Boolean).join(' — ')}</div>
        <div className="hint">
          lanes: <code>{(a.lanes ?? [a.orchestratorTask]).join(', ')}</code>
        </div>
      </td>
      <td className="full">
        <StatusBadge status={level} /> {readinessInWords(level)}
        {a.capability?.ultraGapSummary && level !== 'advanced' && <div className="hint">Still missing: {a.capability.ultraGapSummary.replace(/^[a-z]+ → [a-z]+: /, '')}</div>}
      </td>
      <td className="full">
        {hostServiceInWords(a.hostServiceStatus)}
        {a.serviceUnitName && <div className="hint mono">{a.serviceUnitName}</div>}
        {a.hostServiceReason && <div className="hint">{a.hostServiceReason}</div>}
      </td>
      <td>
        {a.memory.totalRuns === 0 ? (
          <span className="muted">no run yet</span>
        ) : (
          <>
            {a.memory.totalRuns} {a.memory.totalRuns === 1 ? 'run' : 'runs'}
            {a.memory.failedRuns ? <span className="muted"> ({a.memory.failedRuns} failed)</span> : null}, last <RelativeTime iso={a.memory.lastRunAt} />
          </>
        )}
      </td>
    </tr>
  );
}

export function AgentsPage() {
  const overview = useApiQuery<AgentsOverview>('/api/agents/overview', { refetchInterval: 30_000 });
  const agents = useMemo(() => (overview.data?.agents ?? []).map(roleAgentOf), [overview.data]);
  const groups = useMemo(() => groupByRole(agents), [agents]);
  return (
    <>
      <h1>Agents</h1>
      <Loadable query={overview} label="agents" isEmpty={(d) => d.agents.length === 0} empty="No agents are declared.">
        {(d) => {
          const byId = new Map(d.agents.map((a) => [a.id, a]));
          const topology = d.topology;
          return (
            <>
              <Section id="topology" title="Topology by role">
                {!topology || topology.nodes.length === 0 ? (
                  <p className="empty">The service reports no topology.</p>
                ) : (
                  <>
                    <p className="hint">
                      {d.agents.length} agents in {groups.size} roles serve {topology.counts.tasks} task lanes with {topology.counts.skills} skills. Open a role to see its agents;
                      the orchestrator dispatches every lane.
                      {topology.status === 'partial' ? ` Partial: ${topology.problems.join('; ')}.` : ''}
                    </p>
                    <Suspense fallback={<p className="loading">Drawing topology…</p>}>
                      <RoleTopologyDrawing agents={agents} edges={topology.edges} />
                    </Suspense>
                  </>
                )}
              </Section>
              <Section id="agent-readiness" title="Agent readiness">
                <ScrollTable label="Agent readiness" caption={`${d.agents.length} ${d.agents.length === 1 ? 'agent' : 'agents'} by role`} columns={['Agent', 'Readiness', 'Host service', 'Runs']} className="agents-table stack-on-phone">
                  {[...groups].map(([role, members]) => [
                    <tr key={`role-${role}`} className="group-row">
                      <th scope="rowgroup" colSpan={4}>
                        {humanize(role)} <span className="muted">({members.length})</span>
                      </th>
                    </tr>,
                    ...members.map((m) => <AgentRow key={m.id} a={byId.get(m.id)!} />),
                  ])}
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
            </>
          );
        }}
      </Loadable>
    </>
  );
}
