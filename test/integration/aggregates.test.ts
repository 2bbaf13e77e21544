import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciRuns, startFakeCiServer, type FakeCiServer } from '../support/fake-ci-server.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { RAISED_RATE_LIMITS } from '../support/runtime-service.js';
import { startService, type ServiceProcess } from '../support/service-process.js';
import { AGENTS_DIR } from '../support/paths.js';

const CI_TOKEN = 'ci-token-integration-0001';
const COMPANION_MAX_BYTES = 16_384;

const AGGREGATE_PATHS = ['/api/health/extended', '/api/dashboard/overview', '/api/runtime/facts'];
const COMPANION_PATHS = ['/api/companion/overview', '/api/companion/catalog', '/api/companion/incidents', '/api/companion/runs', '/api/companion/approvals'];

describe('aggregates and companion briefs through the running service', () => {
  let ci: FakeCiServer;
  let service: ServiceProcess;
  let api: ReturnType<typeof apiClient>;
  const runIds = { summary: 'agg-summary', held: 'agg-held', brief: 'agg-brief', triage: 'agg-triage' };

  beforeAll(async () => {
    ci = await startFakeCiServer({
      status: 200,
      body: ciRuns({ name: 'ci', status: 'completed', conclusion: 'failure', html_url: 'http://ci.test/acme/widgets/runs/42' }),
    });
    service = await startService({
      baseDir: tempDir('orch-aggregates-'),
      config: {
        agentsDir: AGENTS_DIR,
        schedulerEnabled: false,
        rateLimits: RAISED_RATE_LIMITS,
        codeHostMonitor: { enabled: true, apiBaseUrl: `${ci.url}/api`, repository: 'acme/widgets', branch: 'main', refreshSeconds: 5 },
      },
      env: { CODE_HOST_TOKEN: CI_TOKEN },
    });
    api = apiClient(service.url);
    expect((await api.trigger('summarize-content', { content: 'Rotate keys monthly. Keep the runbook current.', idempotencyKey: runIds.summary })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Held for a decision.', requiresApproval: true, idempotencyKey: runIds.held })).status).toBe(202);
    expect((await waitForTerminal(api, runIds.summary)).status).toBe('success');
    // The brief and the triage read the control plane after the first run finished.
    expect((await api.trigger('control-plane-brief', { idempotencyKey: runIds.brief })).status).toBe(202);
    expect((await api.trigger('incident-triage', { idempotencyKey: runIds.triage })).status).toBe(202);
    expect((await waitForTerminal(api, runIds.brief)).status).toBe('success');
    expect((await waitForTerminal(api, runIds.triage)).status).toBe('success');
  }, 60_000);
  afterAll(async () => {
    await service?.kill();
    await ci?.close();
  });

  it('extended health: every field of the spec, the code host read from the configured CI', async () => {
    const h = await waitFor(async () => {
      const res = await api.get('/api/health/extended');
      expect(res.status).toBe(200);
      return res.body.dependencies.codeHost.status === 'pending' ? undefined : res.body;
    });
    expect(['healthy', 'degraded', 'critical']).toContain(h.status);
    expect(Array.isArray(h.statusReasons)).toBe(true);
    // Routing and worker counts agree with the agents overview (whatever entrypoints this build ships).
    const overview = (await api.get('/api/agents/overview')).body;
    const unspawnable = overview.agents.filter((a: { spawnedWorkerCapable: boolean }) => !a.spawnedWorkerCapable);
    const gapLanes = unspawnable.flatMap((a: { lanes: string[] }) => a.lanes).sort();
    expect([...h.controlPlane.routing.lanesWithoutSpawnableAgent].sort()).toEqual(gapLanes);
    expect(h.controlPlane.routing.status).toBe(gapLanes.length === 0 ? 'ok' : 'degraded');
    if (gapLanes.length > 0) expect(h.statusReasons).toContain(`no spawnable agent for lanes ${h.controlPlane.routing.lanesWithoutSpawnableAgent.join(', ')}`);
    expect(h.controlPlane.queue).toEqual({ queued: 0, processing: 0, held: 1, retrying: 0 });
    expect(h.workers).toEqual({
      declaredAgents: 19,
      spawnedWorkerCapableCount: 19 - unspawnable.length,
      serviceExpectedCount: 2,
      serviceAvailableCount: expect.any(Number),
      serviceInstalledCount: expect.any(Number),
      serviceRunningCount: expect.any(Number),
      serviceExpectedGapCount: expect.any(Number),
      serviceOperationalCount: h.workers.serviceRunningCount,
    });
    // No doc drifted in this workspace: the repair loop is wired and has nothing on record.
    expect(h.repairs).toEqual({ activeCount: 0, verifiedCount: 0, failedCount: 0, unavailableReason: null });
    expect(h.dependencies.persistence).toMatchObject({
      status: 'healthy',
      database: { mode: 'file', status: 'ok' },
      coordination: { status: 'ok', store: 'memory', redisConfigured: false, redisReachable: false },
    });
    expect(h.dependencies.persistence.collections).toBeTypeOf('object');
    expect(h.dependencies.persistence.coordination.detail).toBeTypeOf('string');
    expect(h.dependencies.knowledge).toMatchObject({ indexedEntries: expect.any(Number), conceptCount: expect.any(Number), unavailableReason: null });
    const summary = (await api.get('/api/knowledge/summary')).body;
    expect(h.dependencies.knowledge).toMatchObject({ indexedEntries: summary.runtime.index.indexedEntries, conceptCount: summary.runtime.index.conceptCount });
    expect(h.dependencies.codeHost).toMatchObject({
      status: 'failing',
      summary: 'ci concluded failure on main',
      repository: 'acme/widgets',
      branch: 'main',
      latestRun: { workflowName: 'ci', conclusion: 'failure', url: 'http://ci.test/acme/widgets/runs/42' },
    });
    expect(h.truthLayers.configured).toMatchObject({ status: 'declared', summary: expect.stringContaining('code-host monitor on') });
    expect(h.truthLayers.observed).toMatchObject({ status: h.status, summary: expect.any(String), serviceMode: expect.any(String) });
    expect(h.incidents).toEqual({ overallStatus: 'ok', openCount: 0, activeCount: 0, bySeverity: { critical: 0, warning: 0, info: 0 } });
    // The CI client sent the token to the code host, and nowhere else.
    expect(ci.requests.at(-1)!.headers.authorization).toBe(`Bearer ${CI_TOKEN}`);
    expect(ci.requests.at(-1)!.url).toBe('/api/repos/acme/widgets/actions/runs?branch=main&per_page=1');
    expect(JSON.stringify(h)).not.toContain(CI_TOKEN);
    expect(service.output.join('\n')).not.toContain(CI_TOKEN);
  });

  it('dashboard overview: every field of the spec from the store', async () => {
    const res = await api.get('/api/dashboard/overview');
    expect(res.status).toBe(200);
    const d = res.body;
    expect(d.health.fastStartMode).toBe(false);
    expect(d.queue).toEqual({ queued: 0, processing: 0, held: 1, pressure: [{ type: 'summarize-content', label: expect.any(String), source: 'worker', queuedCount: 1, processingCount: 0, totalCount: 1 }] });
    expect(d.approvals).toEqual({ pendingCount: 1 });
    expect(d.selfHealing.summary).toEqual({ totalCount: 0, activeCount: 0, verifiedCount: 0, failedCount: 0, unavailableReason: null });
    expect(d.governance.taskRetryRecoveries).toEqual({ count: 0, nextRetryAt: null });
    expect(d.accounting).toMatchObject({ totalCostUsd: 0, meteredRuns: 0, tokens: { inputTokens: 0, outputTokens: 0, totalTokens: 0 }, communityHelperBudget: null, currentBudget: { limitUsd: null, remainingUsd: null } });
    // startup, summary, brief and triage finished with accounting.
    expect(d.accounting.windowRuns).toBeGreaterThanOrEqual(4);
    expect(d.accounting.unmeteredRuns).toBe(d.accounting.windowRuns);
    expect(d.accounting.averageLatencyMs).toBeTypeOf('number');
    expect(d.accounting.byModel[0]).toMatchObject({ model: 'local-deterministic', runs: d.accounting.windowRuns, metered: false, costUsd: 0 });
    expect(d.incidents).toEqual({
      overallStatus: 'ok',
      openCount: 0,
      activeCount: 0,
      watchingCount: 0,
      resolvedCount: 0,
      bySeverity: { critical: 0, warning: 0, info: 0 },
      topClassifications: [],
    });
    const types = d.recentTasks.map((t: { type: string }) => t.type);
    expect(types).toEqual(expect.arrayContaining(['summarize-content', 'control-plane-brief', 'incident-triage', 'startup']));
    for (const t of d.recentTasks) expect(Object.keys(t).sort()).toEqual(['handledAt', 'message', 'result', 'type']);
    expect(d.persistence).toMatchObject({ status: 'healthy', mode: 'file', coordination: 'memory' });
  });

  it('runtime facts: effective persistence mode, heartbeat schedule, classification, resident services', async () => {
    const res = await api.get('/api/runtime/facts');
    expect(res.status).toBe(200);
    const f = res.body;
    expect(f.persistence).toMatchObject({ mode: 'file', coordination: 'memory', coordinationConfigured: 'memory', stateOverridden: false });
    expect(f.heartbeat).toMatchObject({ cron: '*/5 * * * *', schedulerEnabled: false, lastRunAt: null });
    expect(f.taskClassification.internalOnly).toEqual(['startup', 'doc-change', 'heartbeat']);
    expect(f.taskClassification.approvalGatedByDefault).toEqual(['build-refactor', 'agent-deploy']);
    expect(f.taskClassification.publicTriggerable).toHaveLength(28);
    expect(f.residentServices.expected.map((s: { agentId: string }) => s.agentId).sort()).toEqual(['community-helper', 'doc-specialist']);
    expect(f.residentServices.workerFirstCount).toBe(17);
    expect(f.execution).toMatchObject({ fastStart: false, concurrency: 2 });
  });

  it('companion overview: the live snapshot with the latest control-plane brief', async () => {
    const res = await api.get('/api/companion/overview');
    expect(res.status).toBe(200);
    const o = res.body;
    expect(o.posture).toBe('attention'); // one approval is pending
    expect(o.queue).toEqual({ queued: 0, processing: 0, held: 1, retrying: 0 });
    expect(o.approvals.pendingCount).toBe(1);
    expect(o.incidents).toEqual({ overallStatus: 'ok', openCount: 0, activeCount: 0, criticalCount: 0 });
    const overview = (await api.get('/api/agents/overview')).body;
    const withoutEntrypoint = overview.agents
      .filter((a: { serviceExpected: boolean; spawnedWorkerCapable: boolean }) => a.serviceExpected && !a.spawnedWorkerCapable)
      .map((a: { id: string }) => a.id);
    expect(o.services).toEqual({ declaredAgents: 19, serviceExpectedCount: 2, serviceExpectedWithoutEntrypoint: withoutEntrypoint });
    // The startup milestone is the one proof item; nothing is at risk.
    expect(o.proof).toMatchObject({ itemCount: 1, atRiskCount: 0, deadLetterCount: 0, unavailableReason: null, latestMilestone: { kind: 'startup', status: 'completed' } });
    expect(o.business).toMatchObject({ schedulerMode: 'enabled', activeCycleId: null, lastCycleStatus: null, unavailableReason: null });
    expect(o.latestBrief).toMatchObject({ runId: runIds.brief, posture: expect.stringMatching(/^(steady|attention|critical)$/), headline: expect.stringContaining('Control plane') });
    expect(o.briefSections.map((s: { name: string }) => s.name)).toEqual(['queue', 'approvals', 'incidents', 'services', 'proof', 'runs']);
    expect(o.nextActions.length).toBeGreaterThan(0);
    expect(o.bytes).toBe(Buffer.byteLength(JSON.stringify(o)));
    expect(o.bytes).toBeLessThanOrEqual(COMPANION_MAX_BYTES);
  });

  it('companion incidents, catalog and runs: bounded briefs with stable fields', async () => {
    const inc = (await api.get('/api/companion/incidents')).body;
    expect(inc).toMatchObject({ overallStatus: 'ok', openCount: 0, open: [], untriagedOpenCount: 0, triage: { runId: runIds.triage } });
    expect(Array.isArray(inc.triageQueue)).toBe(true);
    for (const e of inc.triageQueue) expect(e).toMatchObject({ source: expect.any(String), stillOpen: null, incidentId: null });

    const cat = (await api.get('/api/companion/catalog')).body;
    expect(cat.count).toBe(28);
    expect(cat.tasks.find((t: { type: string }) => t.type === 'summarize-content')).toMatchObject({ approvalGated: false, totalRuns: 2, successRate: 1 });
    expect(cat.tasks.map((t: { type: string }) => t.type)).not.toContain('heartbeat');

    const runs = (await api.get('/api/companion/runs')).body;
    expect(runs.runs.map((r: { runId: string }) => r.runId)).toEqual(expect.arrayContaining(Object.values(runIds)));
    expect(Object.keys(runs.runs[0]).sort()).toEqual(['createdAt', 'finishedAt', 'runId', 'status', 'summary', 'type']);
    expect(runs.total).toBe(4);
    for (const body of [inc, cat, runs]) expect(body.bytes).toBeLessThanOrEqual(COMPANION_MAX_BYTES);
  });

  it('companion approvals: operator only; lists the held run', async () => {
    expect((await api.get('/api/companion/approvals', TEST_KEYS.viewer)).status).toBe(403);
    const res = await api.get('/api/companion/approvals', TEST_KEYS.operator);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ pendingCount: 1, truncation: [] });
    expect(res.body.approvals).toEqual([
      { taskId: expect.any(String), runId: runIds.held, type: 'summarize-content', requestedAt: expect.any(String), riskLevel: expect.any(String), approvalReason: expect.any(String) },
    ]);
  });

  it('every aggregate needs a key; viewers read all but the approvals brief', async () => {
    for (const path of [...AGGREGATE_PATHS, ...COMPANION_PATHS]) {
      expect((await api.get(path, null)).status, path).toBe(401);
      expect((await api.get(path, TEST_KEYS.expired)).status, path).toBe(401);
    }
    for (const path of [...AGGREGATE_PATHS, ...COMPANION_PATHS.filter((p) => !p.endsWith('approvals'))]) {
      expect((await api.get(path, TEST_KEYS.viewer)).status, path).toBe(200);
    }
  });

  it('OpenAPI marks the five companion operations with companionView', async () => {
    const doc = (await api.get('/api/openapi.json', null)).body;
    for (const path of COMPANION_PATHS) {
      expect(doc.paths[path].get['x-svc-access'], path).toEqual({ role: path.endsWith('approvals') ? 'operator' : 'viewer', limiterBucket: 'viewer-read', companionView: true });
    }
    for (const path of AGGREGATE_PATHS) expect(doc.paths[path].get['x-svc-access'].companionView, path).toBeUndefined();
  });

  it('cached reads are invalidated by a run write', async () => {
    await api.get('/api/dashboard/overview');
    const hit = await api.get('/api/dashboard/overview');
    expect(hit.headers.get('x-svc-cache')).toBe('hit');
    expect((await api.trigger('summarize-content', { content: 'One more.', idempotencyKey: 'agg-more' })).status).toBe(202);
    const after = await api.get('/api/dashboard/overview');
    expect(after.headers.get('x-svc-cache')).toBe('miss');
    await waitForTerminal(api, 'agg-more');
  });

  it('a failing code host shows as probe unavailable with the reason, never as a 5xx', async () => {
    ci.answer = { status: 503, body: { message: 'maintenance' } };
    const h = await waitFor(
      async () => {
        const res = await api.get('/api/health/extended');
        expect(res.status).toBe(200);
        return res.body.dependencies.codeHost.status === 'unavailable' ? res.body : undefined;
      },
      15_000,
      'the code-host monitor to see the failing CI API',
    );
    expect(h.dependencies.codeHost).toMatchObject({
      summary: 'probe unavailable: CI runs API answered HTTP 503',
      repository: 'acme/widgets',
      branch: 'main',
      latestRun: { workflowName: null, conclusion: null, url: null },
    });
  }, 20_000);
});
