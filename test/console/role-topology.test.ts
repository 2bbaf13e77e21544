import { describe, expect, it } from 'vitest';
import { hostServiceInWords, readinessInWords } from '../../console/src/lib/agent-words.js';
import { roleTopology, type RoleAgent } from '../../console/src/lib/role-topology.js';
import { buildTopology } from '../../src/agents/topology.js';

const agents: RoleAgent[] = [
  { id: 'build-agent', role: 'delivery', lanes: ['build-refactor'], skills: 3, readiness: 'foundation' },
  { id: 'qa-agent', role: 'verification', lanes: ['qa-verification'], skills: 2, readiness: 'operational' },
  { id: 'tests-agent', role: 'verification', lanes: ['test-intelligence'], skills: 2, readiness: 'foundation' },
  { id: 'monitor-agent', role: 'control-plane', lanes: ['system-monitor', 'incident-triage'], skills: 6, readiness: 'advanced' },
];
const agentEdge = (from: string, to: string, relationship: string) => ({ from: `agent:${from}`, to: `agent:${to}`, relationship });
const edges = [
  { from: 'orchestrator', to: 'task:build-refactor', relationship: 'dispatches-task' },
  { from: 'task:build-refactor', to: 'agent:build-agent', relationship: 'served-by' },
  { from: 'agent:build-agent', to: 'skill:workspace-read', relationship: 'uses-skill' },
  agentEdge('qa-agent', 'build-agent', 'verifies-agent'),
  agentEdge('tests-agent', 'build-agent', 'verifies-agent'),
  ...['build-agent', 'qa-agent', 'tests-agent'].map((to) => agentEdge('monitor-agent', to, 'monitors-agent')),
];

describe('the agent topology grouped by role', () => {
  it('draws one node per role while collapsed, no task or skill node, and says broadcast relationships in words', () => {
    const t = roleTopology(agents, edges, new Set());
    expect(t.roles).toEqual(['control-plane', 'delivery', 'verification']);
    expect(t.nodes.map((n) => n.id)).toEqual(['orchestrator', 'role:control-plane', 'role:delivery', 'role:verification']);
    expect(t.nodes.find((n) => n.id === 'role:verification')).toMatchObject({ label: 'Verification', detail: '2 agents · 2 lanes' });
    // Two agents verifying one: one edge between their roles; monitoring every agent is a sentence.
    expect(t.edges.filter((e) => e.label !== null)).toEqual([{ from: 'role:verification', to: 'role:delivery', label: 'verifies' }]);
    expect(t.broadcasts).toEqual([{ agent: 'monitor-agent', relationship: 'monitors' }]);
  });

  it('opens a role to its agents, and relationships then reach the agents shown', () => {
    const t = roleTopology(agents, edges, new Set(['verification']));
    expect(t.nodes.filter((n) => n.kind === 'agent').map((n) => n.id)).toEqual(['agent:qa-agent', 'agent:tests-agent']);
    expect(t.edges).toContainEqual({ from: 'role:verification', to: 'agent:qa-agent', label: null });
    expect(t.edges.filter((e) => e.label === 'verifies')).toEqual([
      { from: 'agent:qa-agent', to: 'role:delivery', label: 'verifies' },
      { from: 'agent:tests-agent', to: 'role:delivery', label: 'verifies' },
    ]);
  });

  it('keeps the service\'s declared topology to a few nodes and edges while collapsed', () => {
    const ids = ['build-refactor-agent', 'qa-verification-agent', 'test-intelligence-agent', 'system-monitor-agent', 'skill-audit-agent', 'integration-agent', 'doc-specialist', 'community-helper'];
    const declared = buildTopology(ids.map((id) => ({ id, lanes: [id.replace(/-agent$/, '')], allowedSkills: ['workspace-read', 'workspace-write'] })));
    const roles: Record<string, string> = { 'build-refactor-agent': 'delivery', 'qa-verification-agent': 'verification', 'test-intelligence-agent': 'verification', 'doc-specialist': 'knowledge', 'community-helper': 'community' };
    const t = roleTopology(ids.map((id) => ({ id, role: roles[id] ?? 'control-plane', lanes: [id], skills: 2, readiness: 'foundation' })), declared.edges, new Set());
    expect(declared.edges.length).toBeGreaterThan(30);
    expect(t.nodes).toHaveLength(1 + 5);
    expect(t.edges.length).toBeLessThanOrEqual(5 + 2);
    expect(t.broadcasts.map((b) => `${b.agent} ${b.relationship}`)).toEqual(['integration-agent coordinates', 'skill-audit-agent audits', 'system-monitor-agent monitors']);
  });
});

describe('agent readiness in words', () => {
  it('says what each level means, and names a level it does not know', () => {
    expect(readinessInWords('foundation')).toMatch(/^Can run, not yet proven/);
    expect(readinessInWords('advanced')).toMatch(/^Proven/);
    expect(readinessInWords('legendary')).toContain('"legendary"');
    expect(hostServiceInWords('not-applicable')).toMatch(/worker the service starts per run/);
    expect(hostServiceInWords('probe-unavailable')).toMatch(/cannot be read/);
  });
});

describe('the topology by role on a phone', () => {
  it('leaves out the orchestrator and its edges, keeping roles and relationships', () => {
    const t = roleTopology(agents, edges, new Set(), false);
    expect(t.nodes.map((n) => n.id)).toEqual(['role:control-plane', 'role:delivery', 'role:verification']);
    expect(t.edges).toEqual([{ from: 'role:verification', to: 'role:delivery', label: 'verifies' }]);
  });
});
