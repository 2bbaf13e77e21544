import { describe, expect, it } from 'vitest';
import { skillAudit } from '../../../agents/skill-audit-agent/skill-audit.js';
import { assessAgentGovernance, loadSkillRegistry } from '../../../src/agents/skills.js';
import { agentEntry, hoursAgo, quietSnapshot, withSnapshot } from '../../support/control-plane-snapshot.js';

const registry = loadSkillRegistry();

function succeed(result: ReturnType<typeof skillAudit>) {
  if (!result.success) throw new Error(result.error);
  return result;
}

/** A fleet with one agent per governance situation. */
function fleet() {
  return quietSnapshot({
    agents: [
      agentEntry('qa-verification-agent', ['qa-verification'], { allowedSkills: ['workspace-read', 'test-runner'], runCount: 4, lastRunAt: hoursAgo(1) }),
      // Lacks workspace-write; holds the QA test runner instead of the npm script runner.
      agentEntry('build-refactor-agent', ['build-refactor'], { allowedSkills: ['workspace-read', 'test-runner'], runCount: 0 }),
      // A declared-only grant and an unused one beside what its lanes need.
      agentEntry('system-monitor-agent', ['system-monitor', 'incident-triage'], {
        allowedSkills: ['state-read', 'queue-read', 'incident-read', 'host-metrics-read', 'metrics-read', 'workspace-write'],
        runCount: 7,
        lastRunAt: hoursAgo(0.2),
      }),
      agentEntry('doc-specialist', ['drift-repair'], { allowedSkills: ['docs-read', 'knowledge-query'], runCount: 1 }),
      agentEntry('rogue-agent', ['summarize-content'], { allowedSkills: ['text-summarize', 'teleport'], runCount: 2 }),
    ],
  });
}

describe('skill-audit lane', () => {
  it('audits every agent and names the real gaps', () => {
    const result = succeed(skillAudit(withSnapshot(fleet())));
    expect(result.scope).toBe('all');
    expect(result.posture).toBe('blocked');
    expect(result.snapshotAt).toBe(fleet().generatedAt);
    const by = Object.fromEntries(result.agents.map((a) => [a.agentId, a]));

    expect(by['qa-verification-agent']).toMatchObject({
      requiredSkills: ['workspace-read', 'test-runner'],
      missingSkills: [],
      unusedGrants: [],
      highRiskGrants: ['test-runner'],
      lanesRan: true,
      governanceDepth: { score: 100, level: 'governed' },
    });

    const build = by['build-refactor-agent']!;
    expect(build.missingSkills).toEqual([
      { lane: 'build-refactor', skillId: 'workspace-write' },
      { lane: 'build-refactor', skillId: 'npm-script-runner' },
    ]);
    expect(build.unusedGrants).toEqual(['test-runner']);
    expect(build.lanesRan).toBe(false);
    expect(build.governanceDepth.level).toBe('shallow');

    const monitor = by['system-monitor-agent']!;
    expect(monitor.declaredOnlyGrants).toEqual(['metrics-read']);
    expect(monitor.unusedGrants).toEqual(['metrics-read', 'workspace-write']);
    expect(monitor.highRiskGrants).toEqual(['workspace-write']);
    expect(monitor.governanceDepth.level).toBe('partial');

    expect(by['doc-specialist']).toMatchObject({ lanesWithoutRequirements: ['drift-repair'], unusedGrants: [], declaredOnlyGrants: ['knowledge-query'] });
    expect(by['doc-specialist']!.governanceDepth.level).toBe('shallow');
    expect(by['rogue-agent']!.unregisteredGrants).toEqual(['teleport']);

    const find = (agentId: string, kind: string) => result.findings.filter((f) => f.agentId === agentId && f.kind === kind);
    expect(find('build-refactor-agent', 'missing-grant')).toEqual([
      {
        agentId: 'build-refactor-agent',
        kind: 'missing-grant',
        severity: 'high',
        skillIds: ['workspace-write', 'npm-script-runner'],
        message: 'build-refactor-agent lacks workspace-write, npm-script-runner that lane build-refactor exercises: the tool gate refuses its runs',
      },
    ]);
    expect(find('system-monitor-agent', 'unused-grant').map((f) => [f.severity, f.skillIds])).toEqual([
      ['medium', ['workspace-write']],
      ['info', ['metrics-read']],
    ]);
    expect(find('system-monitor-agent', 'declared-only-grant')[0]!.severity).toBe('medium');
    expect(find('rogue-agent', 'unregistered-grant')[0]!.skillIds).toEqual(['teleport']);
    expect(find('doc-specialist', 'no-requirement-record')[0]!.severity).toBe('medium');
    expect(find('build-refactor-agent', 'lane-never-ran')).toHaveLength(1);
    // Worst first.
    expect(result.findings[0]!.severity).toBe('high');
    expect(result.levels).toEqual({ governed: 1, partial: 2, shallow: 2 });
    expect(by['rogue-agent']!.governanceDepth).toMatchObject({ score: 70, level: 'partial' });
    expect(result.operatorSummary).toContain('Skill audit blocked: 5 agent(s) audited');
    expect(result.recommendedNextActions[0]).toContain('Grant the missing skills');
    expect(result.specialistContract.status).toBe('completed');
  });

  it('audits one agent when asked, and is clear when its grants match its lane', () => {
    const result = succeed(skillAudit(withSnapshot(fleet(), { agentId: 'qa-verification-agent' })));
    expect(result.scope).toBe('qa-verification-agent');
    expect(result.agents.map((a) => a.agentId)).toEqual(['qa-verification-agent']);
    expect(result.posture).toBe('clear');
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: 'high-risk-grant', severity: 'info', skillIds: ['test-runner'] }),
    ]);
  });

  it('is watching when only medium findings remain', () => {
    const result = succeed(skillAudit(withSnapshot(fleet(), { agentId: 'system-monitor-agent' })));
    expect(result.posture).toBe('watching');
  });

  it('refuses an unknown agent id, naming the known ones', () => {
    const result = skillAudit(withSnapshot(fleet(), { agentId: 'ghost-agent' }));
    expect(result.success).toBe(false);
    if (result.success) return;
    expect(result.error).toBe('unknown agent "ghost-agent": no such agent in the registry');
    expect(result.specialistContract).toMatchObject({ status: 'refused', refusalReason: result.error });
    expect(result.recommendedNextActions[0]).toContain('qa-verification-agent');
  });

  it('refuses without a control-plane snapshot', () => {
    const result = skillAudit({ agentId: 'qa-verification-agent' });
    expect(result.success).toBe(false);
    if (!result.success) expect(result.error).toContain('no control-plane snapshot');
  });

  it('documents the depth rule: unknown run history halves the evidence part', () => {
    const g = assessAgentGovernance({ id: 'x', lanes: ['qa-verification'], allowedSkills: ['workspace-read', 'test-runner'], runCount: null, lastRunAt: null }, registry);
    expect(g.lanesRan).toBeNull();
    expect(g.governanceDepth).toMatchObject({ score: 90, level: 'governed' });
  });
});
