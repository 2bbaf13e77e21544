import { join } from 'node:path';
import { Compile } from 'typebox/compile';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeHostMonitor } from '../../src/aggregates/code-host-monitor.js';
import { createCompanionBriefs } from '../../src/aggregates/companion.js';
import { createAggregateReaders } from '../../src/aggregates/readers.js';
import { createServiceProbe } from '../../src/agents/service-probe.js';
import { loadSkillRegistry } from '../../src/agents/skills.js';
import type { Clock } from '../../src/clock.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { CacheTags } from '../../src/domain/cache-invalidation.js';
import type { IncidentReadPort } from '../../src/incidents/read-port.js';
import type { ProtectedRoute, RouteSpec } from '../../src/http/route-spec.js';
import { aggregateRoutes } from '../../src/http/routes/aggregates.js';
import { companionRoutes } from '../../src/http/routes/companion.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { createCatalogView } from '../../src/runtime/catalog-view.js';
import { createControlPlaneSnapshot } from '../../src/lanes/control-plane-snapshot.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { tempDir, testConfig } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');
const clock: Clock = { now: () => NOW } as Clock;

const docSpecialist = registeredAgent('doc-specialist', ['drift-repair'], {
  name: 'Doc specialist',
  description: 'd',
  lifecycleMode: 'service-expected',
  serviceExpected: true,
  serviceUnitName: 'doc-specialist.service',
});
const registry = agentRegistry([docSpecialist]);

/** A ledger with one open critical incident. */
const incidents: IncidentReadPort = {
  rollup: async () => ({
    overallStatus: 'critical',
    openCount: 1,
    activeCount: 1,
    watchingCount: 0,
    resolvedCount: 3,
    bySeverity: { critical: 1, warning: 0, info: 0 },
    topClassifications: [{ classification: 'alert', label: 'Alert', count: 1, activeCount: 1, watchingCount: 0, highestSeverity: 'critical' }],
  }),
  listOpen: async () => [
    {
      incidentId: 'inc-1',
      title: 'disk full on worker host',
      classification: 'alert',
      severity: 'critical',
      status: 'active',
      firstSeenAt: '2026-03-01T11:00:00.000Z',
      lastSeenAt: '2026-03-01T11:55:00.000Z',
      owner: 'ops',
      acknowledged: true,
      remediationStatus: 'in-progress',
      linkedRunIds: [],
    },
  ],
};

let store: FileStateStore;
let coordination: MemoryCoordination;
let routes: RouteSpec[];

beforeAll(async () => {
  const dir = tempDir('aggregate-routes-');
  const config = testConfig({}, dir);
  store = new FileStateStore(join(dir, 'data', 'state.json'));
  await store.open();
  coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
  const runs = [
    makeRun({ runId: 'held-1', type: 'build-refactor', status: 'pending', queueState: 'held', approval: { ...makeRun().approval, required: true, status: 'pending', requestedAt: '2026-03-01T11:00:00.000Z', reason: 'approval-gated by default' } }),
    makeRun({ runId: 'retry-1', type: 'summarize-content', status: 'retrying', queueState: null, retry: { attempt: 1, retryLimit: 3, backoffMs: 30000, nextRetryAt: '2026-03-01T12:00:30.000Z', lastError: 'exit 1' } }),
  ];
  for (const run of runs) await store.mutateRun(run.runId, insertIfAbsent(run));
  const probe = createServiceProbe({ runShow: async () => 'LoadState=loaded\nActiveState=inactive\nSubState=dead\nUnitFileState=enabled\n', ttlMs: 60_000, now: () => NOW });
  await probe.refresh(['doc-specialist.service']);
  const agents = { registry, store, probe, skills: loadSkillRegistry(), serviceHeartbeat: async () => null, now: () => NOW, serviceEntrypointExists: () => true };
  const readers = createAggregateReaders({
    config,
    clock,
    store,
    coordination,
    agents,
    codeHost: createCodeHostMonitor(config.codeHostMonitor),
    ports: { incidents, repairs: { counts: async () => ({ activeCount: 1, verifiedCount: 2, failedCount: 0 }) } },
    serviceStartedAt: new Date('2026-03-01T11:00:00.000Z'),
  });
  const briefs = createCompanionBriefs({
    store,
    incidents,
    controlPlaneSnapshot: createControlPlaneSnapshot({ store, clock, config, agents: registry, serviceStartedAt: NOW, stateStoreKind: 'file', coordinationKind: 'memory' }),
    catalog: createCatalogView(store),
    pendingApprovals: async () => ({ count: 1, pending: [{ taskId: 't-held', runId: 'held-1', type: 'build-refactor', requestedAt: '2026-03-01T11:00:00.000Z', impact: { riskLevel: 'high', approvalReason: 'approval-gated by default' } }] }),
    now: () => NOW,
  });
  routes = [...aggregateRoutes({ readers }), ...companionRoutes({ briefs })];
});
afterAll(async () => {
  await store.close();
  await coordination.close();
});

function route(path: string): ProtectedRoute {
  const found = routes.find((r) => r.path === path);
  if (!found || found.access.kind !== 'protected') throw new Error(`no protected route ${path}`);
  return found as ProtectedRoute;
}

async function call(path: string) {
  const r = route(path);
  const reply = await r.handler({ identity: { actor: 'v', role: 'viewer', apiKeyLabel: 'v', apiKeyExpiresAt: null }, requestId: 'req-1', query: {}, params: {}, body: undefined, request: {} as never });
  const check = Compile(r.schema.response[200]!);
  expect(check.Check(reply.body), `${path}: ${JSON.stringify([...check.Errors(reply.body)].slice(0, 3))}`).toBe(true);
  return reply.body as any;
}

describe('aggregate and companion routes', () => {
  it('declare viewer reads (approvals brief: operator), companionView on the five briefs, and cache tags', () => {
    expect(routes.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/health/extended',
      'GET /api/dashboard/overview',
      'GET /api/dashboard/run-stats',
      'GET /api/runtime/facts',
      'GET /api/companion/overview',
      'GET /api/companion/catalog',
      'GET /api/companion/incidents',
      'GET /api/companion/runs',
      'GET /api/companion/approvals',
    ]);
    for (const r of routes.slice(0, 4)) expect(r.access).toEqual({ kind: 'protected', role: 'viewer', bucket: 'viewer-read' });
    for (const r of routes.slice(4)) {
      expect(r.access).toEqual({ kind: 'protected', role: r.path.endsWith('approvals') ? 'operator' : 'viewer', bucket: 'viewer-read', companionView: true });
    }
    expect(route('/api/dashboard/overview').cache?.tags).toEqual(expect.arrayContaining([CacheTags.runs, CacheTags.approvals, CacheTags.incidents]));
    const healthTags = route('/api/health/extended').cache!.tags as (ctx: never) => string[];
    expect(healthTags({} as never)).toContain('code-host:never');
  });

  it('extended health answers its schema from the ports: critical incident, stopped unit, repairs wired', async () => {
    const h = await call('/api/health/extended');
    expect(h.status).toBe('critical');
    expect(h.statusReasons).toEqual(expect.arrayContaining(['1 open critical incident(s)', '1 service-expected agent(s) with a missing or stopped unit']));
    expect(h.workers).toMatchObject({ declaredAgents: 1, serviceExpectedCount: 1, serviceInstalledCount: 1, serviceRunningCount: 0, serviceExpectedGapCount: 1 });
    expect(h.repairs).toEqual({ activeCount: 1, verifiedCount: 2, failedCount: 0, unavailableReason: null });
    expect(h.controlPlane.queue).toEqual({ queued: 0, processing: 0, held: 1, retrying: 1 });
    expect(h.truthLayers.observed.serviceMode).toBe('workers-only');
    expect(h.dependencies.codeHost.status).toBe('disabled');
  });

  it('dashboard and runtime facts answer their schemas', async () => {
    const d = await call('/api/dashboard/overview');
    expect(d.selfHealing.summary).toEqual({ totalCount: 3, activeCount: 1, verifiedCount: 2, failedCount: 0, unavailableReason: null });
    expect(d.governance.taskRetryRecoveries).toEqual({ count: 1, nextRetryAt: '2026-03-01T12:00:30.000Z' });
    expect(d.incidents.topClassifications[0]).toMatchObject({ classification: 'alert', highestSeverity: 'critical' });
    const f = await call('/api/runtime/facts');
    expect(f.residentServices.expected).toEqual([
      { agentId: 'doc-specialist', lifecycleMode: 'service-expected', serviceUnitName: 'doc-specialist.service', hostServiceStatus: expect.any(String), serviceInstalled: true, serviceRunning: false },
    ]);
  });

  it('every companion brief answers its schema; the incident brief lists the open ledger incident', async () => {
    const overview = await call('/api/companion/overview');
    expect(overview.posture).toBe('critical');
    expect(overview.repairs).toBeUndefined();
    expect(overview.proof.unavailableReason).toBe('proof surface is not wired into this build yet');
    const inc = await call('/api/companion/incidents');
    expect(inc.open).toEqual([
      { incidentId: 'inc-1', title: 'disk full on worker host', classification: 'alert', severity: 'critical', status: 'active', lastSeenAt: '2026-03-01T11:55:00.000Z', owner: 'ops', acknowledged: true, remediationStatus: 'in-progress' },
    ]);
    expect(inc).toMatchObject({ triage: null, untriagedOpenCount: 1 });
    await call('/api/companion/catalog');
    expect((await call('/api/companion/runs')).runs.map((r: { runId: string }) => r.runId).sort()).toEqual(['held-1', 'retry-1']);
    expect((await call('/api/companion/approvals')).approvals[0]).toMatchObject({ runId: 'held-1', riskLevel: 'high' });
  });
});
