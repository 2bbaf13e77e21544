import { describe, expect, it } from 'vitest';
import { loadSkillRegistry, SKILL_DEFINITIONS } from '../../src/agents/skills.js';
import { executeEvidence, preflightToolGate } from '../../src/agents/tool-gate.js';

const NOW = '2026-03-01T12:00:00.000Z';
const registry = loadSkillRegistry();

describe('tool-gate preflight', () => {
  it('allows a lane whose agent holds every required, executable skill', () => {
    const p = preflightToolGate({
      taskType: 'build-refactor',
      agent: { id: 'build-refactor-agent', allowedSkills: ['workspace-read', 'workspace-write', 'npm-script-runner', 'llm-draft'] },
      registry,
      now: NOW,
    });
    expect(p).toEqual({
      decision: 'allowed',
      taskType: 'build-refactor',
      agentId: 'build-refactor-agent',
      requiredSkills: ['workspace-read', 'workspace-write', 'npm-script-runner'],
      grantedSkills: ['workspace-read', 'workspace-write', 'npm-script-runner', 'llm-draft'],
      missingSkills: [],
      nonExecutableSkills: [],
      unregisteredSkills: [],
      reason: null,
      checkedAt: NOW,
    });
  });

  it('refuses when a required skill is not granted, naming it', () => {
    const p = preflightToolGate({ taskType: 'build-refactor', agent: { id: 'b', allowedSkills: ['workspace-read'] }, registry, now: NOW });
    expect(p.decision).toBe('refused');
    expect(p.missingSkills).toEqual(['workspace-write', 'npm-script-runner']);
    expect(p.reason).toBe('tool gate refused build-refactor: agent b is not granted workspace-write, npm-script-runner');
  });

  it('refuses when a required skill is declared only (nothing executes it)', () => {
    // A registry in which nothing performs coding-audit (as before the work cycle shipped).
    const declaredOnly = loadSkillRegistry(
      SKILL_DEFINITIONS.map((d) => (d.id === 'coding-audit' ? { ...d, executability: 'declared' as const, executorBinding: null } : d)),
    );
    const p = preflightToolGate({
      taskType: 'autonomous-work-cycle',
      agent: { id: 'w', allowedSkills: ['workspace-read', 'coding-audit'] },
      registry: declaredOnly,
      now: NOW,
    });
    expect(p.decision).toBe('refused');
    expect(p.missingSkills).toEqual([]);
    expect(p.nonExecutableSkills).toEqual(['coding-audit']);
    expect(p.reason).toContain('nothing in this build executes coding-audit');
  });

  it('refuses when a required skill is not registered', () => {
    const partial = loadSkillRegistry(SKILL_DEFINITIONS.filter((d) => d.id !== 'test-runner'));
    const p = preflightToolGate({ taskType: 'qa-verification', agent: { id: 'qa', allowedSkills: ['workspace-read', 'test-runner'] }, registry: partial, now: NOW });
    expect(p.decision).toBe('refused');
    expect(p.unregisteredSkills).toEqual(['test-runner']);
    expect(p.reason).toContain('requires unregistered skill(s) test-runner');
  });

  it('allows a lane that exercises no skill, and refuses a lane with no requirement record', () => {
    expect(preflightToolGate({ taskType: 'normalize-data', agent: { id: 'n', allowedSkills: [] }, registry, now: NOW }).decision).toBe('allowed');
    const p = preflightToolGate({ taskType: 'drift-repair', agent: { id: 'doc-specialist', allowedSkills: ['docs-read'] }, registry, now: NOW });
    expect(p).toMatchObject({ decision: 'refused', reason: 'tool gate refused drift-repair: the lane has no skill requirement record' });
    expect(preflightToolGate({ taskType: 'toString', agent: { id: 'x', allowedSkills: [] }, registry, now: NOW }).decision).toBe('refused');
  });

  it('builds execute evidence: skills exercised only when allowed, failure reason kept', () => {
    const allowed = preflightToolGate({ taskType: 'market-research', agent: { id: 'm', allowedSkills: ['http-fetch-allowlisted', 'html-extract'] }, registry, now: NOW });
    expect(executeEvidence(allowed, { ok: true, durationMs: 812.4, failureReason: null }, NOW)).toEqual({
      skillsExercised: ['http-fetch-allowlisted', 'html-extract'],
      ok: true,
      durationMs: 812,
      failureReason: null,
      recordedAt: NOW,
    });
    expect(executeEvidence(allowed, { ok: false, durationMs: 5, failureReason: 'address refused' }, NOW)).toMatchObject({ ok: false, failureReason: 'address refused' });
    const refused = preflightToolGate({ taskType: 'market-research', agent: { id: 'm', allowedSkills: [] }, registry, now: NOW });
    expect(executeEvidence(refused, { ok: true, durationMs: 0, failureReason: null }, NOW)).toMatchObject({
      skillsExercised: [],
      ok: false,
      failureReason: refused.reason,
    });
  });
});
