/**
 * The declared agent graph: orchestrator → task lane → agent → skill, plus a small table of
 * agent-to-agent relationships. Declared, not observed; relationship-history.ts observes it.
 */

export const AGENT_RELATIONSHIPS = ['feeds-agent', 'verifies-agent', 'monitors-agent', 'audits-agent', 'coordinates-agent'] as const;
export type AgentRelationship = (typeof AGENT_RELATIONSHIPS)[number];
export type StructuralRelationship = 'dispatches-task' | 'served-by' | 'uses-skill';

/** `to: '*'` means every other registered agent. */
export interface DeclaredRelationship {
  from: string;
  to: string | '*';
  relationship: AgentRelationship;
}

export const DECLARED_RELATIONSHIPS: readonly DeclaredRelationship[] = [
  { from: 'qa-verification-agent', to: 'build-refactor-agent', relationship: 'verifies-agent' },
  { from: 'test-intelligence-agent', to: 'build-refactor-agent', relationship: 'verifies-agent' },
  { from: 'system-monitor-agent', to: '*', relationship: 'monitors-agent' },
  { from: 'skill-audit-agent', to: '*', relationship: 'audits-agent' },
  { from: 'integration-agent', to: '*', relationship: 'coordinates-agent' },
  { from: 'doc-specialist', to: 'community-helper', relationship: 'feeds-agent' },
  { from: 'data-extraction-agent', to: 'normalization-agent', relationship: 'feeds-agent' },
];

export type TopologyNodeKind = 'orchestrator' | 'task' | 'agent' | 'skill';

export interface TopologyNode {
  id: string;
  kind: TopologyNodeKind;
  label: string;
}

export interface TopologyEdge {
  from: string;
  to: string;
  relationship: StructuralRelationship | AgentRelationship;
}

export interface Topology {
  /** `complete` when every agent is reachable from the orchestrator through a lane and no declared relationship names an unregistered agent. */
  status: 'complete' | 'partial';
  counts: { totalNodes: number; totalEdges: number; relationshipEdges: number; agents: number; tasks: number; skills: number };
  nodes: TopologyNode[];
  edges: TopologyEdge[];
  /** The most connected nodes (degree), highest first, at most 5. */
  hotspots: Array<{ nodeId: string; kind: TopologyNodeKind; degree: number }>;
  /** Why the status is partial. */
  problems: string[];
}

export interface TopologyAgent {
  id: string;
  lanes: readonly string[];
  allowedSkills: readonly string[];
}

export const nodeId = {
  orchestrator: 'orchestrator',
  task: (type: string) => `task:${type}`,
  agent: (id: string) => `agent:${id}`,
  skill: (id: string) => `skill:${id}`,
};

/** Every concrete agent-to-agent edge of the declared table among the registered agents. */
export function expandRelationships(agentIds: readonly string[], table: readonly DeclaredRelationship[] = DECLARED_RELATIONSHIPS) {
  const known = new Set(agentIds);
  const edges: Array<{ from: string; to: string; relationship: AgentRelationship }> = [];
  const problems: string[] = [];
  for (const r of table) {
    if (!known.has(r.from)) {
      problems.push(`relationship ${r.relationship} names unregistered agent ${r.from}`);
      continue;
    }
    const targets = r.to === '*' ? agentIds.filter((id) => id !== r.from) : [r.to];
    for (const to of targets) {
      if (!known.has(to)) problems.push(`relationship ${r.relationship} names unregistered agent ${to}`);
      else edges.push({ from: r.from, to, relationship: r.relationship });
    }
  }
  return { edges, problems };
}

export function buildTopology(agents: readonly TopologyAgent[], table: readonly DeclaredRelationship[] = DECLARED_RELATIONSHIPS): Topology {
  const nodes = new Map<string, TopologyNode>();
  const edges: TopologyEdge[] = [];
  const add = (id: string, kind: TopologyNodeKind, label: string) => {
    if (!nodes.has(id)) nodes.set(id, { id, kind, label });
  };
  add(nodeId.orchestrator, 'orchestrator', 'orchestrator');
  const problems: string[] = [];

  for (const agent of agents) {
    add(nodeId.agent(agent.id), 'agent', agent.id);
    if (agent.lanes.length === 0) problems.push(`agent ${agent.id} serves no task lane`);
    for (const lane of agent.lanes) {
      if (!nodes.has(nodeId.task(lane))) {
        add(nodeId.task(lane), 'task', lane);
        edges.push({ from: nodeId.orchestrator, to: nodeId.task(lane), relationship: 'dispatches-task' });
      }
      edges.push({ from: nodeId.task(lane), to: nodeId.agent(agent.id), relationship: 'served-by' });
    }
    for (const skill of agent.allowedSkills) {
      add(nodeId.skill(skill), 'skill', skill);
      edges.push({ from: nodeId.agent(agent.id), to: nodeId.skill(skill), relationship: 'uses-skill' });
    }
  }

  const related = expandRelationships(agents.map((a) => a.id), table);
  problems.push(...related.problems);
  for (const r of related.edges) edges.push({ from: nodeId.agent(r.from), to: nodeId.agent(r.to), relationship: r.relationship });

  const degree = new Map<string, number>();
  for (const e of edges) {
    degree.set(e.from, (degree.get(e.from) ?? 0) + 1);
    degree.set(e.to, (degree.get(e.to) ?? 0) + 1);
  }
  const hotspots = [...degree.entries()]
    .filter(([id]) => id !== nodeId.orchestrator)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, 5)
    .map(([id, d]) => ({ nodeId: id, kind: nodes.get(id)!.kind, degree: d }));

  const all = [...nodes.values()];
  return {
    status: problems.length === 0 ? 'complete' : 'partial',
    counts: {
      totalNodes: all.length,
      totalEdges: edges.length,
      relationshipEdges: related.edges.length,
      agents: all.filter((n) => n.kind === 'agent').length,
      tasks: all.filter((n) => n.kind === 'task').length,
      skills: all.filter((n) => n.kind === 'skill').length,
    },
    nodes: all,
    edges,
    hotspots,
    problems,
  };
}
