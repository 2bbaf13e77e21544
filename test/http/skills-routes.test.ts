import { describe, expect, it } from 'vitest';
import { Compile } from 'typebox/compile';
import { loadSkillRegistry } from '../../src/agents/skills.js';
import { executeEvidence, preflightToolGate, type ToolGateEvidence } from '../../src/agents/tool-gate.js';
import type { ProtectedRoute, RouteSpec } from '../../src/http/route-spec.js';
import { CacheTags } from '../../src/domain/cache-invalidation.js';
import { skillRoutes } from '../../src/http/routes/skills.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';

const registry = loadSkillRegistry();

const agent = (id: string, lanes: string[], allowedSkills: string[]) => registeredAgent(id, lanes, { allowedSkills });

const AGENTS = agentRegistry([
  agent('market-research-agent', ['market-research'], ['http-fetch-allowlisted', 'html-extract']),
  agent('build-refactor-agent', ['build-refactor'], ['workspace-read', 'workspace-write', 'npm-script-runner']),
  agent('qa-verification-agent', ['qa-verification'], ['workspace-read']),
  agent('system-monitor-agent', ['system-monitor', 'incident-triage'], ['state-read', 'queue-read', 'incident-read', 'host-metrics-read', 'metrics-read']),
]);

function record(runId: string, taskType: string, agentId: string, at: string, outcome: { ok: boolean; failureReason: string | null } | null): ToolGateEvidence {
  const owner = AGENTS.get(agentId)!;
  const preflight = preflightToolGate({ taskType, agent: owner, registry, now: at });
  const execute = outcome === null ? null : executeEvidence(preflight, { ...outcome, durationMs: 120 }, at.replace(':00.000Z', ':05.000Z'));
  return { runId, taskType, agentId, preflight, execute };
}

const EVIDENCE: ToolGateEvidence[] = [
  record('mr-1', 'market-research', 'market-research-agent', '2026-03-01T10:00:00.000Z', { ok: true, failureReason: null }),
  record('mr-2', 'market-research', 'market-research-agent', '2026-03-01T11:00:00.000Z', { ok: false, failureReason: 'address 10.0.0.1 refused' }),
  record('qa-1', 'qa-verification', 'qa-verification-agent', '2026-03-01T11:30:00.000Z', null),
  record('br-1', 'build-refactor', 'build-refactor-agent', '2026-03-01T09:00:00.000Z', { ok: true, failureReason: null }),
];

const routes = skillRoutes({ skills: registry, agents: AGENTS, evidence: async () => EVIDENCE });

function route(path: string): ProtectedRoute {
  const found = routes.find((r: RouteSpec) => r.path === path);
  if (!found || found.access.kind !== 'protected') throw new Error(`no protected route ${path}`);
  return found as ProtectedRoute;
}

async function call(path: string, query: Record<string, unknown> = {}) {
  const r = route(path);
  const reply = await r.handler({ identity: { actor: 'viewer', role: 'viewer' } as never, requestId: 'req-1', query, params: {}, body: undefined, request: {} as never });
  // The documented response schema describes what the handler really answers.
  const check = Compile(r.schema.response[200]!);
  expect(check.Check(reply.body), `${path}: ${JSON.stringify([...check.Errors(reply.body)].slice(0, 3))}`).toBe(true);
  return reply.body as any;
}

describe('skills routes', () => {
  it('declares four viewer reads in the viewer-read bucket, cached under the skills tag', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/skills/registry',
      'GET /api/skills/policy',
      'GET /api/skills/telemetry',
      'GET /api/skills/audit',
    ]);
    for (const r of routes) {
      expect(r.access).toEqual({ kind: 'protected', role: 'viewer', bucket: 'viewer-read' });
      expect(r.cache?.tags).toContain(CacheTags.skills);
    }
  });

  it('registry: intake records with provenance and who holds and needs each skill', async () => {
    const body = await call('/api/skills/registry');
    expect(body.count).toBe(registry.list().length);
    expect(body.digest).toBe(registry.digest);
    const fetch = body.skills.find((s: { id: string }) => s.id === 'http-fetch-allowlisted');
    expect(fetch).toMatchObject({
      executability: 'executable',
      executorBinding: 'worker:http-fetch',
      persistenceMode: 'none',
      grantedTo: ['market-research-agent'],
      requiredBy: ['market-research'],
      provenance: { source: 'src/agents/skills.ts', definitionHash: registry.get('http-fetch-allowlisted')!.provenance.definitionHash },
    });
    expect(body.skills.find((s: { id: string }) => s.id === 'workspace-read').grantedTo).toEqual(['build-refactor-agent', 'qa-verification-agent']);
  });

  it('policy: high-risk grants, uncovered lanes, unused and declared-only grants', async () => {
    const body = await call('/api/skills/policy');
    expect(body.posture).toBe('blocked');
    expect(body.byExecutability.executable + body.byExecutability.declared).toBe(body.skillCount);
    expect(body.highRiskGrants).toEqual([{ agentId: 'build-refactor-agent', skills: ['workspace-write', 'npm-script-runner'] }]);
    expect(body.uncoveredLanes).toContainEqual({ lane: 'qa-verification', agentId: 'qa-verification-agent', missingSkills: ['test-runner'], nonExecutableSkills: [] });
    // No agent serves skill-audit here: every required skill counts as missing.
    expect(body.uncoveredLanes).toContainEqual({ lane: 'skill-audit', agentId: null, missingSkills: ['agent-registry-read', 'skill-registry-read'], nonExecutableSkills: [] });
    // The work cycle runs in-process (no agent owns it); its coding-audit tool is executable now.
    expect(body.uncoveredLanes).toContainEqual(expect.objectContaining({ lane: 'autonomous-work-cycle', agentId: null, nonExecutableSkills: [] }));
    expect(body.uncoveredLanes.map((l: { lane: string }) => l.lane)).not.toContain('market-research');
    expect(body.unusedGrants).toEqual([{ agentId: 'system-monitor-agent', skills: ['metrics-read'] }]);
    expect(body.declaredOnlyGrants).toEqual([{ agentId: 'system-monitor-agent', skills: ['metrics-read'] }]);
    expect(body.unregisteredGrants).toEqual([]);
  });

  it('telemetry: per skill and per lane counts from the evidence', async () => {
    const body = await call('/api/skills/telemetry');
    expect(body.evidenceCount).toBe(4);
    const lane = (t: string) => body.lanes.find((l: { taskType: string }) => l.taskType === t);
    expect(lane('market-research')).toEqual({
      taskType: 'market-research',
      preflightsAllowed: 2,
      preflightsRefused: 0,
      executionsOk: 1,
      executionsFailed: 1,
      lastSeenAt: '2026-03-01T11:00:05.000Z',
    });
    expect(lane('qa-verification')).toMatchObject({ preflightsAllowed: 0, preflightsRefused: 1, executionsOk: 0, executionsFailed: 0 });
    expect(lane('code-index')).toMatchObject({ preflightsAllowed: 0, preflightsRefused: 0, lastSeenAt: null });
    const skill = (id: string) => body.skills.find((s: { skillId: string }) => s.skillId === id);
    expect(skill('html-extract')).toMatchObject({ preflightsAllowed: 2, executionsOk: 1, executionsFailed: 1 });
    expect(skill('workspace-read')).toMatchObject({ preflightsAllowed: 1, preflightsRefused: 1, executionsOk: 1 });
    expect(skill('test-runner')).toMatchObject({ preflightsRefused: 1, lastSeenAt: '2026-03-01T11:30:00.000Z' });
  });

  it('audit: newest evidence first, bounded by limit', async () => {
    const body = await call('/api/skills/audit', { limit: 2 });
    expect(body).toMatchObject({ total: 4, limit: 2, count: 2 });
    expect(body.items.map((i: ToolGateEvidence) => i.runId)).toEqual(['qa-1', 'mr-2']);
    expect(body.items[0].preflight).toMatchObject({ decision: 'refused', missingSkills: ['test-runner'] });
    expect(body.items[0].execute).toBeNull();
    expect(body.items[1].execute).toMatchObject({ ok: false, failureReason: 'address 10.0.0.1 refused' });
    const all = await call('/api/skills/audit');
    expect(all.limit).toBe(50);
    expect(all.items.map((i: ToolGateEvidence) => i.runId)).toEqual(['qa-1', 'mr-2', 'mr-1', 'br-1']);
  });

  it('audit query: limit must be 1..200', () => {
    const check = Compile(route('/api/skills/audit').schema.querystring!);
    expect(check.Check({ limit: 200 })).toBe(true);
    expect(check.Check({ limit: 0 })).toBe(false);
    expect(check.Check({ limit: 201 })).toBe(false);
    expect(check.Check({ since: 'x' })).toBe(false);
  });
});
