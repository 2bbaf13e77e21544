import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceProbe } from '../../src/agents/service-probe.js';
import { loadSkillRegistry } from '../../src/agents/skills.js';
import { CacheTags } from '../../src/domain/cache-invalidation.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Role } from '../../src/config/types.js';
import { statusOf } from '../../src/http/errors.js';
import type { ProtectedRoute, RouteSpec } from '../../src/http/route-spec.js';
import { agentRoutes } from '../../src/http/routes/agents.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

const summarizer = registeredAgent('summarization-agent', ['summarize-content'], { name: 'Summarization', description: 's', allowedSkills: ['text-summarize'] });
const registry = agentRegistry([summarizer]);

let store: FileStateStore;
let routes: RouteSpec[];

beforeAll(async () => {
  const dir = tempDir('agents-routes-');
  store = new FileStateStore(join(dir, 'data', 'state.json'));
  await store.open();
  const run = makeRun({
    runId: 'sum-1',
    type: 'summarize-content',
    status: 'success',
    queueState: null,
    createdAt: '2026-03-01T11:00:00.000Z',
    finishedAt: '2026-03-01T11:00:01.000Z',
    operatorSummary: 'summarised notes for alice@example.com',
    result: { operatorSummary: 'ok', summary: 'short', specialistContract: {} },
  });
  await store.mutateRun(run.runId, insertIfAbsent(run));
  const probe = createServiceProbe({ runShow: async () => '', ttlMs: 60_000, now: () => NOW });
  routes = agentRoutes({ registry, store, probe, skills: loadSkillRegistry(), serviceHeartbeat: async () => null, now: () => NOW });
});
afterAll(async () => {
  await store.close();
});

function route(path: string): ProtectedRoute {
  const found = routes.find((r) => r.path === path);
  if (!found || found.access.kind !== 'protected') throw new Error(`no protected route ${path}`);
  return found as ProtectedRoute;
}

async function call(path: string, query: Record<string, unknown>, role: Role = 'viewer') {
  const r = route(path);
  if (r.schema.querystring) {
    const q = Compile(r.schema.querystring);
    expect(q.Check(query), JSON.stringify([...q.Errors(query)])).toBe(true);
  }
  const reply = await r.handler({ identity: { actor: role, role, apiKeyLabel: role, apiKeyExpiresAt: null }, requestId: 'req-1', query, params: {}, body: undefined, request: {} as never });
  const check = Compile(r.schema.response[200]!);
  expect(check.Check(reply.body), `${path}: ${JSON.stringify([...check.Errors(reply.body)].slice(0, 3))}`).toBe(true);
  return reply.body as any;
}

async function refusal(path: string, query: Record<string, unknown>, role: Role): Promise<DomainError> {
  const r = route(path);
  const err = await (async () => r.handler({ identity: { actor: role, role, apiKeyLabel: role, apiKeyExpiresAt: null }, requestId: 'req-1', query, params: {}, body: undefined, request: {} as never }))().catch((e: unknown) => e);
  expect(err).toBeInstanceOf(DomainError);
  return err as DomainError;
}

describe('agent routes', () => {
  it('declares two viewer reads; the overview is cached under runs and agents', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /api/agents/overview', 'GET /api/memory/recall']);
    for (const r of routes) expect(r.access).toEqual({ kind: 'protected', role: 'viewer', bucket: 'viewer-read' });
    expect(route('/api/agents/overview').cache?.tags).toEqual([CacheTags.runs, CacheTags.agents]);
    expect(route('/api/memory/recall').cache?.tags).toEqual([CacheTags.runs, CacheTags.agents]);
  });

  it('answers the overview with agents, topology and relationship history', async () => {
    const body = await call('/api/agents/overview', {});
    expect(body.agents[0]).toMatchObject({ id: 'summarization-agent', memory: { totalRuns: 1, lastRunAt: '2026-03-01T11:00:00.000Z' } });
    expect(body.agents[0].capability.currentReadiness).toBe('advanced');
    expect(body.topology.counts.totalNodes).toBe(4);
    expect(body.relationshipHistory.totalObservations).toBe(1);
  });

  it('recalls redacted memory for a viewer', async () => {
    const body = await call('/api/memory/recall', { agentId: 'summarization-agent' });
    expect(body.redacted).toBe(true);
    expect(body.page).toEqual({ limit: 20, offset: 0, returned: 1, total: 1 });
    expect(body.runs[0].operatorSummary).toBe('summarised notes for [redacted:email]');
  });

  it('refuses includeSensitive=true to viewer and operator keys with 403 forbidden, even for an unknown agent', async () => {
    for (const role of ['viewer', 'operator'] as const) {
      const err = await refusal('/api/memory/recall', { agentId: 'nobody', includeSensitive: 'true' }, role);
      expect(err.code).toBe('forbidden');
      expect(statusOf(err)).toBe(403);
    }
    const raw = await call('/api/memory/recall', { agentId: 'summarization-agent', includeSensitive: 'true' }, 'admin');
    expect(raw.redacted).toBe(false);
    expect(raw.runs[0].operatorSummary).toContain('alice@example.com');
  });

  it('answers 404 not_found for an unknown agent and rejects an out-of-range limit', async () => {
    const err = await refusal('/api/memory/recall', { agentId: 'nobody' }, 'viewer');
    expect(statusOf(err)).toBe(404);
    const q = Compile(route('/api/memory/recall').schema.querystring!);
    expect(q.Check({ agentId: 'x', limit: 101 })).toBe(false);
    expect(q.Check({ agentId: 'x', includeSensitive: 'yes' })).toBe(false);
  });
});
