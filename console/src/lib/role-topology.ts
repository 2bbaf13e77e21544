import { humanize } from './labels.js';

/**
 * The agent topology grouped by role, for a drawing of at most one screen: the orchestrator, one
 * node per role (the agent's spine: delivery, verification, knowledge…), and, for each role an
 * operator expands, its agents. Skills are counted on the nodes, not drawn (they were most of
 * the edges). Agent-to-agent relationships are drawn between what is shown (an agent when its
 * role is expanded, else its role); a relationship an agent has with every other agent is said
 * once in words instead of drawn as one edge per agent.
 */

export interface RoleAgent {
  id: string;
  role: string;
  lanes: readonly string[];
  skills: number;
  readiness: string;
}

export interface TopologyEdgeIn {
  from: string;
  to: string;
  relationship: string;
}

export interface RoleNode {
  id: string;
  kind: 'orchestrator' | 'role' | 'agent';
  label: string;
  detail: string;
  /** The role a role or agent node belongs to. */
  role: string | null;
  readiness: string | null;
}

export interface RoleEdge {
  from: string;
  to: string;
  label: string | null;
}

/** "system-monitor-agent monitors every other agent". */
export interface Broadcast {
  agent: string;
  relationship: string;
}

export interface RoleTopology {
  roles: string[];
  nodes: RoleNode[];
  edges: RoleEdge[];
  broadcasts: Broadcast[];
}

/** Structural edges (orchestrator → task → agent → skill); the rest relate agents to agents. */
const STRUCTURAL = new Set(['dispatches-task', 'served-by', 'uses-skill']);
const AGENT_PREFIX = 'agent:';

/** "verifies-agent" → "verifies". */
export const relationshipWord = (relationship: string) => relationship.replace(/-agent$/, '');

export const roleNodeId = (role: string) => `role:${role}`;
const agentNodeId = (id: string) => `${AGENT_PREFIX}${id}`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

export function groupByRole(agents: readonly RoleAgent[]): Map<string, RoleAgent[]> {
  const groups = new Map<string, RoleAgent[]>();
  for (const a of [...agents].sort((x, y) => x.role.localeCompare(y.role) || x.id.localeCompare(y.id))) {
    groups.set(a.role, [...(groups.get(a.role) ?? []), a]);
  }
  return groups;
}

/**
 * `withOrchestrator: false` leaves out the orchestrator and its edge to every role (a phone's
 * width has room for two ranks; the page says in words that it dispatches every lane).
 */
export function roleTopology(agents: readonly RoleAgent[], edges: readonly TopologyEdgeIn[], expanded: ReadonlySet<string>, withOrchestrator = true): RoleTopology {
  const groups = groupByRole(agents);
  const roleOf = new Map(agents.map((a) => [a.id, a.role]));
  const nodes: RoleNode[] = withOrchestrator ? [{ id: 'orchestrator', kind: 'orchestrator', label: 'orchestrator', detail: plural(agents.length, 'agent'), role: null, readiness: null }] : [];
  const out: RoleEdge[] = [];
  for (const [role, members] of groups) {
    const lanes = new Set(members.flatMap((m) => m.lanes));
    nodes.push({ id: roleNodeId(role), kind: 'role', label: humanize(role), detail: `${plural(members.length, 'agent')} · ${plural(lanes.size, 'lane')}`, role, readiness: null });
    if (withOrchestrator) out.push({ from: 'orchestrator', to: roleNodeId(role), label: null });
    if (!expanded.has(role)) continue;
    for (const m of members) {
      nodes.push({ id: agentNodeId(m.id), kind: 'agent', label: m.id, detail: `${m.lanes.join(', ') || 'no lane'} · ${plural(m.skills, 'skill')}`, role, readiness: m.readiness });
      out.push({ from: roleNodeId(role), to: agentNodeId(m.id), label: null });
    }
  }

  // Relationships, by agent and kind; one that reaches every other agent is said, not drawn.
  const targets = new Map<string, Set<string>>();
  for (const e of edges) {
    if (STRUCTURAL.has(e.relationship) || !e.from.startsWith(AGENT_PREFIX) || !e.to.startsWith(AGENT_PREFIX)) continue;
    const key = `${e.from.slice(AGENT_PREFIX.length)}\n${e.relationship}`;
    targets.set(key, (targets.get(key) ?? new Set()).add(e.to.slice(AGENT_PREFIX.length)));
  }
  const broadcasts: Broadcast[] = [];
  const drawn = new Set<string>();
  const shown = (agent: string) => {
    const role = roleOf.get(agent);
    if (role === undefined) return null;
    return expanded.has(role) ? agentNodeId(agent) : roleNodeId(role);
  };
  for (const [key, to] of targets) {
    const [from, relationship] = key.split('\n') as [string, string];
    if (agents.length > 2 && to.size >= agents.length - 1) {
      broadcasts.push({ agent: from, relationship: relationshipWord(relationship) });
      continue;
    }
    for (const target of to) {
      const a = shown(from);
      const b = shown(target);
      const id = `${a}>${b}>${relationship}`;
      if (a === null || b === null || a === b || drawn.has(id)) continue;
      drawn.add(id);
      out.push({ from: a, to: b, label: relationshipWord(relationship) });
    }
  }
  broadcasts.sort((x, y) => x.agent.localeCompare(y.agent));
  return { roles: [...groups.keys()], nodes, edges: out, broadcasts };
}
