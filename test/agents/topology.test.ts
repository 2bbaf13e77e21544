import { describe, expect, it } from 'vitest';
import { buildTopology, expandRelationships } from '../../src/agents/topology.js';

const agents = [
  { id: 'build-refactor-agent', lanes: ['build-refactor'], allowedSkills: ['workspace-read', 'workspace-write'] },
  { id: 'qa-verification-agent', lanes: ['qa-verification'], allowedSkills: ['workspace-read'] },
  { id: 'system-monitor-agent', lanes: ['system-monitor', 'incident-triage'], allowedSkills: ['state-read'] },
];

describe('buildTopology', () => {
  it('links orchestrator → task → agent → skill and the declared agent relationships', () => {
    const table = [
      { from: 'qa-verification-agent', to: 'build-refactor-agent', relationship: 'verifies-agent' as const },
      { from: 'system-monitor-agent', to: '*', relationship: 'monitors-agent' as const },
    ];
    const t = buildTopology(agents, table);
    expect(t.status).toBe('complete');
    // 1 orchestrator + 4 tasks + 3 agents + 3 distinct skills
    expect(t.counts).toMatchObject({ totalNodes: 11, agents: 3, tasks: 4, skills: 3, relationshipEdges: 3 });
    // 4 dispatches + 4 served-by + 4 uses-skill + 3 relationships
    expect(t.counts.totalEdges).toBe(15);
    expect(t.edges).toContainEqual({ from: 'orchestrator', to: 'task:incident-triage', relationship: 'dispatches-task' });
    expect(t.edges).toContainEqual({ from: 'task:incident-triage', to: 'agent:system-monitor-agent', relationship: 'served-by' });
    expect(t.edges).toContainEqual({ from: 'agent:system-monitor-agent', to: 'agent:qa-verification-agent', relationship: 'monitors-agent' });
    // Equal degree breaks ties by id.
    expect(t.hotspots.slice(0, 2)).toEqual([
      { nodeId: 'agent:build-refactor-agent', kind: 'agent', degree: 5 },
      { nodeId: 'agent:system-monitor-agent', kind: 'agent', degree: 5 },
    ]);
  });

  it('reports a relationship naming an unregistered agent as partial', () => {
    const { edges, problems } = expandRelationships(['a'], [{ from: 'a', to: 'ghost', relationship: 'feeds-agent' }]);
    expect(edges).toEqual([]);
    expect(problems).toEqual(['relationship feeds-agent names unregistered agent ghost']);
    expect(buildTopology([{ id: 'a', lanes: ['x'], allowedSkills: [] }], [{ from: 'a', to: 'ghost', relationship: 'feeds-agent' }]).status).toBe('partial');
  });
});
