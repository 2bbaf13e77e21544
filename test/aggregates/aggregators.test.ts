import { describe, expect, it } from 'vitest';
import type { AgentOverviewEntry } from '../../src/agents/overview.js';
import { rollupAccounting } from '../../src/aggregates/accounting-rollup.js';
import { fitBrief } from '../../src/aggregates/bounded-brief.js';
import { disabledReading } from '../../src/aggregates/code-host-monitor.js';
import { composeCompanionApprovals, composeCompanionIncidents, composeCompanionOverview, livePosture } from '../../src/aggregates/companion.js';
import { composeDashboard, nextRetryAt, queuePressure, recentTasks } from '../../src/aggregates/dashboard.js';
import { composeExtendedHealth, type ExtendedHealthInput } from '../../src/aggregates/extended-health.js';
import { persistenceView } from '../../src/aggregates/persistence-view.js';
import { readPort } from '../../src/aggregates/read-ports.js';
import { composeRuntimeFacts } from '../../src/aggregates/runtime-facts.js';
import { shownTarget } from '../../src/store/shown-target.js';
import type { IncidentDigest } from '../../src/incidents/read-port.js';
import { incidentRollup } from '../support/incident-rollup.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { addToRunCounts, emptyRunCounts } from '../../src/store/run-rules.js';
import type { RunAccounting, RunRecord } from '../../src/domain/run-record.js';
import type { ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';
import { makeRun } from '../support/runs.js';

const NOW = new Date('2026-03-01T12:00:00.000Z');

function counts(spec: Array<[type: string, status: RunRecord['status'], queueState: RunRecord['queueState'], n: number]>) {
  const c = emptyRunCounts();
  for (const [type, status, queueState, n] of spec) addToRunCounts(c, { type, status, queueState }, n);
  return c;
}

function agent(id: string, overrides: Partial<AgentOverviewEntry> = {}): AgentOverviewEntry {
  return {
    id,
    spawnedWorkerCapable: true,
    serviceAvailable: false,
    serviceExpected: false,
    serviceUnitName: null,
    serviceInstalled: null,
    serviceRunning: null,
    ...overrides,
  } as AgentOverviewEntry;
}

const rollup = incidentRollup;

const healthyPersistence = persistenceView(
  'sql',
  { status: 'ok', target: 'sql:/srv/state.sqlite', detail: 'WAL', collections: { runs: 12 } },
  { store: 'memory', status: 'ok', redisConfigured: false, redisReachable: false, detail: 'in-process' },
);

function healthInput(overrides: Partial<ExtendedHealthInput> = {}): ExtendedHealthInput {
  return {
    now: NOW,
    config: { fastStart: false, schedulerEnabled: true, concurrency: 2, kvStoreUrl: null, codeHostMonitor: { enabled: false } as never },
    counts: counts([
      ['doc-sync', 'pending', 'ready', 3],
      ['build-refactor', 'pending', 'held', 1],
      ['summarize-content', 'running', null, 2],
      ['summarize-content', 'retrying', null, 1],
      ['summarize-content', 'success', null, 40],
    ]),
    agents: {
      agents: [
        agent('summarization-agent'),
        agent('security-agent'),
        agent('doc-specialist', { serviceExpected: true, serviceAvailable: true, serviceUnitName: 'doc.service', serviceInstalled: true, serviceRunning: true }),
        agent('community-helper', { serviceExpected: true, serviceAvailable: true, serviceUnitName: 'ch.service', serviceInstalled: true, serviceRunning: false }),
      ],
      serviceGaps: [{ agentId: 'community-helper', unit: 'ch.service', reason: 'unit-stopped', detail: 'ch.service is inactive/dead' }],
    },
    persistence: healthyPersistence,
    knowledge: { indexedEntries: null, conceptCount: null, unavailableReason: 'knowledge index is not wired into this build yet' },
    repairs: { activeCount: 1, verifiedCount: 4, failedCount: 0, unavailableReason: null },
    codeHost: disabledReading(),
    incidents: rollup(),
    ...overrides,
  };
}

describe('extended health', () => {
  it('counts workers from the overview entries and names the service gap as the reason for degraded', () => {
    const h = composeExtendedHealth(healthInput());
    expect(h.workers).toEqual({
      declaredAgents: 4,
      spawnedWorkerCapableCount: 4,
      serviceExpectedCount: 2,
      serviceAvailableCount: 2,
      serviceInstalledCount: 2,
      serviceRunningCount: 1,
      serviceExpectedGapCount: 1,
      serviceOperationalCount: 1,
    });
    expect(h.controlPlane.queue).toEqual({ queued: 3, processing: 2, held: 1, retrying: 1 });
    expect(h.status).toBe('degraded');
    expect(h.statusReasons).toContain('1 service-expected agent(s) with a missing or stopped unit');
    expect(h.truthLayers.observed).toMatchObject({ status: 'degraded', serviceMode: 'partial-services' });
    expect(h.truthLayers.configured.summary).toContain('4 agents declared (2 service-expected); state store sqlite');
    expect(h.dependencies.persistence).toMatchObject({
      status: 'healthy',
      database: { mode: 'sqlite', target: 'sql:/srv/state.sqlite', status: 'ok' },
      collections: { runs: 12 },
      coordination: { status: 'ok', store: 'memory', redisConfigured: false, redisReachable: false, detail: 'in-process' },
    });
    expect(h.dependencies.knowledge).toEqual({ indexedEntries: null, conceptCount: null, unavailableReason: 'knowledge index is not wired into this build yet' });
    expect(h.dependencies.codeHost.status).toBe('disabled');
    expect(h.repairs).toEqual({ activeCount: 1, verifiedCount: 4, failedCount: 0, unavailableReason: null });
  });

  it('is critical with an open critical incident or a store that is down, healthy with nothing to report', () => {
    const critical = composeExtendedHealth(
      healthInput({ incidents: rollup({ overallStatus: 'critical', openCount: 2, activeCount: 2, bySeverity: { critical: 1, warning: 1, info: 0 } }) }),
    );
    expect(critical.status).toBe('critical');
    expect(critical.incidents).toEqual({ overallStatus: 'critical', openCount: 2, activeCount: 2, bySeverity: { critical: 1, warning: 1, info: 0 } });
    const down = persistenceView('file', { status: 'down', target: '/x', detail: 'journal unreadable', collections: {} }, healthyPersistence.coordination as never);
    expect(composeExtendedHealth(healthInput({ persistence: down })).statusReasons[0]).toBe('state store down: journal unreadable');

    const everyLaneAgent = [...new Set(TASK_CATALOG.flatMap((e) => (e.agentId ? [e.agentId] : [])))].map((id) => agent(id));
    const calm = composeExtendedHealth(healthInput({ agents: { agents: everyLaneAgent, serviceGaps: [] } }));
    expect(calm.controlPlane.routing).toMatchObject({ status: 'ok', lanesWithoutSpawnableAgent: [] });
    expect(calm.status).toBe('healthy');
    expect(calm.truthLayers.observed.serviceMode).toBe('no-resident-services');
  });

  it('reports a worker lane whose agent cannot be spawned as a routing gap', () => {
    const h = composeExtendedHealth(healthInput({ agents: { agents: [agent('security-agent', { spawnedWorkerCapable: false })], serviceGaps: [] } }));
    expect(h.controlPlane.routing.status).toBe('degraded');
    expect(h.controlPlane.routing.lanesWithoutSpawnableAgent).toContain('security-audit');
    expect(h.controlPlane.routing.lanesWithoutSpawnableAgent).toContain('summarize-content');
  });
});

function accounted(runId: string, accounting: Partial<RunAccounting>, type = 'summarize-content'): RunRecord {
  return makeRun({
    runId,
    type,
    status: 'success',
    queueState: null,
    finishedAt: '2026-03-01T11:00:00.000Z',
    accounting: {
      model: 'local-deterministic',
      metered: false,
      costUsd: 0,
      note: 'unmetered',
      latencyMs: 100,
      usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
      budget: { limitUsd: null, remainingUsd: null },
      ...accounting,
    },
  });
}

describe('dashboard', () => {
  it('rolls up accounting per model over the window, metered and unmetered apart', () => {
    const runs = [
      accounted('m1', { model: 'gpt-x', metered: true, costUsd: 0.0125, latencyMs: 900, usage: { inputTokens: 1000, outputTokens: 250, totalTokens: 1250 }, budget: { limitUsd: 5, remainingUsd: 4.9875 } }),
      accounted('u1', { latencyMs: 100 }),
      accounted('u2', { latencyMs: 300 }),
      makeRun({ runId: 'queued' }),
    ];
    const community = accounted('c1', { model: 'gpt-x', metered: true, costUsd: 0.002, budget: { limitUsd: 1, remainingUsd: 0.5 } }, 'community-response');
    const a = rollupAccounting(runs, community);
    expect(a).toMatchObject({
      windowRuns: 3,
      totalCostUsd: 0.0125,
      currentBudget: { limitUsd: 5, remainingUsd: 4.9875 },
      meteredRuns: 1,
      unmeteredRuns: 2,
      tokens: { inputTokens: 1000, outputTokens: 250, totalTokens: 1250 },
      averageLatencyMs: 433,
    });
    expect(a.byModel).toEqual([
      { model: 'local-deterministic', runs: 2, metered: false, calls: 0, failedCalls: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, averageLatencyMs: 200 },
      { model: 'gpt-x', runs: 1, metered: true, calls: 0, failedCalls: 0, costUsd: 0.0125, inputTokens: 1000, outputTokens: 250, totalTokens: 1250, averageLatencyMs: 900 },
    ]);
    expect(a.communityHelperBudget).toEqual({ runId: 'c1', at: '2026-03-01T11:00:00.000Z', metered: true, costUsd: 0.002, limitUsd: 1, remainingUsd: 0.5 });
    expect(rollupAccounting([], null)).toMatchObject({ windowRuns: 0, averageLatencyMs: null, communityHelperBudget: null, byModel: [] });
  });

  it('rolls up metered runs by the model calls the gateway recorded, with the live budget when given', () => {
    const call = (model: string, inputTokens: number, outputTokens: number, costUsd: number, outcome: 'ok' | 'failed' = 'ok') => ({
      at: '2026-03-01T10:59:00.000Z', attempt: 1, lane: 'summarize-content', model, outcome, inputTokens, outputTokens, costUsd, latencyMs: 200,
      tries: 1, error: outcome === 'failed' ? 'provider error (500) after 3 tries' : null, budget: { limitUsd: 2, remainingUsd: 1.5 },
    });
    const calls = [call('small-model', 100, 50, 0.001), call('big-model', 400, 100, 0.01), call('small-model', 0, 0, 0, 'failed')];
    const run = { ...accounted('m2', { model: 'big-model', metered: true, costUsd: 0.011, usage: { inputTokens: 500, outputTokens: 150, totalTokens: 650 } }), modelCalls: calls };
    const a = rollupAccounting([run, accounted('u3', {})], null, { limitUsd: 2, remainingUsd: 1.25 });
    expect(a).toMatchObject({ windowRuns: 2, meteredRuns: 1, unmeteredRuns: 1, modelCalls: 3, currentBudget: { limitUsd: 2, remainingUsd: 1.25 } });
    expect(a.byModel).toEqual([
      { model: 'big-model', runs: 1, metered: true, calls: 1, failedCalls: 0, costUsd: 0.01, inputTokens: 400, outputTokens: 100, totalTokens: 500, averageLatencyMs: 200 },
      { model: 'local-deterministic', runs: 1, metered: false, calls: 0, failedCalls: 0, costUsd: 0, inputTokens: 0, outputTokens: 0, totalTokens: 0, averageLatencyMs: 100 },
      { model: 'small-model', runs: 1, metered: true, calls: 2, failedCalls: 1, costUsd: 0.001, inputTokens: 100, outputTokens: 50, totalTokens: 150, averageLatencyMs: 200 },
    ]);
  });

  it('queue pressure lists busy types heaviest first with catalog labels', () => {
    const p = queuePressure(
      counts([
        ['doc-sync', 'pending', 'ready', 1],
        ['summarize-content', 'pending', 'ready', 4],
        ['summarize-content', 'running', null, 2],
        ['heartbeat', 'running', null, 1],
        ['security-audit', 'success', null, 9],
      ]),
    );
    expect(p).toEqual([
      { type: 'summarize-content', label: expect.any(String), source: 'worker', queuedCount: 4, processingCount: 2, totalCount: 6 },
      { type: 'doc-sync', label: expect.any(String), source: 'handler', queuedCount: 1, processingCount: 0, totalCount: 1 },
      { type: 'heartbeat', label: expect.any(String), source: 'internal', queuedCount: 0, processingCount: 1, totalCount: 1 },
    ]);
  });

  it('next retry is the earliest pending one; recent tasks are newest first with a message', () => {
    const retry = (runId: string, at: string) =>
      makeRun({ runId, status: 'retrying', retry: { attempt: 1, retryLimit: 3, backoffMs: 1000, nextRetryAt: at, lastError: 'x' } });
    expect(nextRetryAt([retry('a', '2026-03-01T12:05:00.000Z'), retry('b', '2026-03-01T12:01:00.000Z')])).toBe('2026-03-01T12:01:00.000Z');
    expect(nextRetryAt([])).toBeNull();
    const tasks = recentTasks([
      { type: 'startup', status: 'completed', timestamp: '2026-03-01T10:00:00.000Z', durationMs: 12 },
      { type: 'summarize-content', status: 'error', timestamp: '2026-03-01T11:00:00.000Z', durationMs: 40, error: 'worker exited 1' },
      { type: 'doc-sync', status: 'completed', timestamp: '2026-03-01T11:30:00.000Z', durationMs: 5, result: { operatorSummary: 'indexed 3 docs' } },
    ]);
    expect(tasks).toEqual([
      { handledAt: '2026-03-01T11:30:00.000Z', type: 'doc-sync', result: 'completed', message: 'indexed 3 docs' },
      { handledAt: '2026-03-01T11:00:00.000Z', type: 'summarize-content', result: 'error', message: 'worker exited 1' },
      { handledAt: '2026-03-01T10:00:00.000Z', type: 'startup', result: 'completed', message: 'startup completed in 12 ms' },
    ]);
  });

  it('composes every field the spec lists; an unwired repair loop shows as null with its reason', () => {
    const d = composeDashboard({
      now: NOW,
      fastStart: true,
      serviceStartedAt: new Date('2026-03-01T11:00:00.000Z'),
      counts: counts([
        ['doc-sync', 'pending', 'ready', 2],
        ['build-refactor', 'pending', 'held', 3],
        ['summarize-content', 'retrying', null, 1],
      ]),
      retrying: [makeRun({ status: 'retrying', retry: { attempt: 1, retryLimit: 3, backoffMs: 1, nextRetryAt: '2026-03-01T12:00:30.000Z', lastError: 'e' } })],
      repairs: { activeCount: null, verifiedCount: null, failedCount: null, unavailableReason: 'repair loop is not wired into this build yet' },
      accounting: rollupAccounting([], null),
      incidents: rollup({ overallStatus: 'warning', openCount: 1, watchingCount: 1 }),
      taskHistory: [],
      persistence: healthyPersistence,
    });
    expect(d.health).toMatchObject({ fastStartMode: true, uptimeSeconds: 3600 });
    expect(d.queue).toMatchObject({ queued: 2, processing: 0, held: 3 });
    expect(d.approvals).toEqual({ pendingCount: 3 });
    expect(d.selfHealing.summary).toEqual({
      totalCount: null,
      activeCount: null,
      verifiedCount: null,
      failedCount: null,
      unavailableReason: 'repair loop is not wired into this build yet',
    });
    expect(d.governance.taskRetryRecoveries).toEqual({ count: 1, nextRetryAt: '2026-03-01T12:00:30.000Z' });
    expect(d.incidents).toMatchObject({ overallStatus: 'warning', openCount: 1, watchingCount: 1, topClassifications: [] });
    expect(d.persistence).toEqual({ status: 'healthy', mode: 'sqlite', coordination: 'memory', coordinationStatus: 'ok' });
    expect(d.authoritative).toBe(false);
  });
});

describe('read ports', () => {
  it('an absent port and a failing port both read as nulls with the reason', async () => {
    expect(await readPort(['a', 'b'], 'thing', undefined)).toEqual({ a: null, b: null, unavailableReason: 'thing is not wired into this build yet' });
    expect(await readPort(['a'], 'thing', () => Promise.reject(new Error('index closed')))).toEqual({ a: null, unavailableReason: 'thing could not be read: index closed' });
    expect(await readPort(['a'], 'thing', async () => ({ a: 3 }))).toEqual({ a: 3, unavailableReason: null });
  });
});

describe('runtime facts', () => {
  it('states the effective mode, schedule, classification and resident services; never a URL credential', () => {
    expect(shownTarget('postgres://orch:s3cret@db:5432/orch')).toBe('postgres://[redacted]@db:5432/orch');
    expect(shownTarget('/srv/orch/data/orchestrator-state.json')).toBe('orchestrator-state.json');
    expect(shownTarget('sql:/srv/orch/data/state.sqlite')).toBe('sql:state.sqlite');
    expect(shownTarget('docdb:orchestrator')).toBe('docdb:orchestrator');
    expect(shownTarget('postgres:db.internal:5432/orch')).toBe('postgres:db.internal:5432/orch');
    const facts = composeRuntimeFacts({
      now: NOW,
      config: {
        stateTarget: '/srv/state.json',
        stateOverridden: true,
        kvStoreUrl: 'redis://127.0.0.1:6379',
        heartbeatCron: '*/5 * * * *',
        nightlyBatchCron: '0 2 * * *',
        schedulerEnabled: true,
        fastStart: false,
        concurrency: 2,
        runRetention: 5000,
        retry: { maxAttempts: 3, baseDelayMs: 30000, maxDelayMs: 900000 },
        workerTimeoutMs: 120000,
      },
      storeKind: 'file',
      coordinationStore: 'memory',
      lastHeartbeat: makeRun({ runId: 'hb-1', type: 'heartbeat', status: 'success', finishedAt: '2026-03-01T11:55:00.000Z' }),
      agents: [
        { id: 'doc-specialist', serviceExpected: true, serviceUnitName: 'doc.service', lifecycleMode: 'service-expected' },
        { id: 'security-agent', serviceExpected: false, serviceUnitName: null, lifecycleMode: 'worker-first' },
      ] as never,
      probe: (unit) => ({ unit, hostServiceStatus: 'running', serviceInstalled: true, serviceRunning: true } as never),
    });
    expect(facts.persistence).toEqual({
      mode: 'file',
      target: 'state.json',
      stateOverridden: true,
      inheritedByWorkers: true,
      coordination: 'memory',
      coordinationConfigured: 'redis',
    });
    expect(facts.heartbeat).toMatchObject({ cron: '*/5 * * * *', schedulerEnabled: true, lastRunId: 'hb-1', lastRunAt: '2026-03-01T11:55:00.000Z', lastStatus: 'success' });
    expect(facts.taskClassification.internalOnly).toEqual(['startup', 'doc-change', 'heartbeat']);
    expect(facts.taskClassification.publicTriggerable).not.toContain('heartbeat');
    expect(facts.taskClassification.approvalGatedByDefault).toEqual(['build-refactor', 'agent-deploy']);
    expect(facts.residentServices).toEqual({
      expectedCount: 1,
      workerFirstCount: 1,
      expected: [
        { agentId: 'doc-specialist', lifecycleMode: 'service-expected', serviceUnitName: 'doc.service', hostServiceStatus: 'running', serviceInstalled: true, serviceRunning: true },
      ],
    });
  });
});

const snapshot = (overrides: Partial<ControlPlaneSnapshot> = {}): ControlPlaneSnapshot => ({
  generatedAt: NOW.toISOString(),
  service: { startedAt: NOW.toISOString(), uptimeSeconds: 1, pid: 1, stateStore: 'file', coordination: 'memory', concurrency: 2, stateDirectory: null },
  queue: { queued: 0, processing: 0, held: 0, retrying: 0 },
  approvals: { pendingCount: 0, oldestRequestedAt: null, items: [] },
  runs: { window: 10, byType: [], recent: [] },
  agents: [],
  incidents: [],
  milestones: [],
  ...overrides,
});

const digest = (id: string, title: string, classification = 'alert'): IncidentDigest => ({
  incidentId: id,
  title,
  classification,
  severity: 'critical',
  status: 'active',
  firstSeenAt: '2026-03-01T10:00:00.000Z',
  lastSeenAt: '2026-03-01T11:00:00.000Z',
  owner: null,
  acknowledged: false,
  remediationStatus: 'ready',
  linkedRunIds: [],
});

describe('companion briefs', () => {
  it('overview: live posture from the snapshot and the latest brief result', () => {
    const failing = snapshot({ runs: { window: 10, byType: [{ type: 'qa-verification', total: 6, success: 1, failed: 5, running: 0, failureRate: 0.833 }], recent: [] } });
    expect(livePosture(snapshot(), rollup())).toBe('steady');
    expect(livePosture(failing, rollup())).toBe('attention');
    expect(livePosture(snapshot(), rollup({ overallStatus: 'critical' }))).toBe('critical');
    const briefRun = makeRun({
      runId: 'brief-1',
      type: 'control-plane-brief',
      status: 'success',
      finishedAt: '2026-03-01T11:50:00.000Z',
      result: {
        success: true,
        posture: 'attention',
        briefBytes: 900,
        truncated: false,
        brief: { headline: 'Control plane attention: runs', snapshotAt: '2026-03-01T11:49:59.000Z', sections: { runs: { status: 'attention', facts: ['a', 'b', 'c', 'd'], items: [] } } },
        recommendedNextActions: ['Read the failed runs.'],
      },
    });
    const unavailable = { itemCount: null, atRiskCount: null, deadLetterCount: null, latestAt: null, unavailableReason: 'proof surface is not wired into this build yet' };
    const o = composeCompanionOverview({ now: NOW, snapshot: failing, incidents: rollup(), briefRun, proof: unavailable, business: { schedulerMode: null, activeCycleId: null, lastCycleStatus: null, nextRunAt: null, unavailableReason: 'x' } });
    expect(o.posture).toBe('attention');
    expect(o.failingLanes).toEqual([{ type: 'qa-verification', failed: 5, total: 6, failureRate: 0.833 }]);
    expect(o.latestBrief).toEqual({ runId: 'brief-1', finishedAt: '2026-03-01T11:50:00.000Z', posture: 'attention', headline: 'Control plane attention: runs', snapshotAt: '2026-03-01T11:49:59.000Z', briefBytes: 900, truncated: false });
    expect(o.briefSections).toEqual([{ name: 'runs', status: 'attention', facts: ['a', 'b', 'c'] }]);
    expect(o.nextActions).toEqual(['Read the failed runs.']);
    expect(o.proof).toMatchObject({ itemCount: null, unavailableReason: 'proof surface is not wired into this build yet', latestMilestone: null });
    expect(o.bytes).toBe(Buffer.byteLength(JSON.stringify(o)));
  });

  it('incidents: fuses the triage ranking with the ledger; a ranked incident since resolved is stillOpen false', () => {
    const triageRun = makeRun({
      runId: 'triage-1',
      type: 'incident-triage',
      status: 'success',
      finishedAt: '2026-03-01T11:40:00.000Z',
      result: {
        snapshotAt: '2026-03-01T11:39:00.000Z',
        counts: { total: 3, critical: 2, warning: 1 },
        queue: [
          { rank: 1, source: 'incident-ledger', classification: 'alert', severity: 'critical', title: 'disk full', score: 95, recommendedAction: 'free disk' },
          { rank: 2, source: 'incident-ledger', classification: 'alert', severity: 'critical', title: 'gone now', score: 80, recommendedAction: 'none' },
          { rank: 3, source: 'run-history', classification: 'runtime', severity: 'warning', title: 'qa failing', score: 60, recommendedAction: 'read runs' },
        ],
      },
    });
    const b = composeCompanionIncidents({
      now: NOW,
      rollup: rollup({ overallStatus: 'critical', openCount: 2, activeCount: 2, bySeverity: { critical: 2, warning: 0, info: 0 } }),
      open: [digest('inc-1', 'disk full'), digest('inc-2', 'new alert')],
      triageRun,
    });
    expect(b.triage).toEqual({ runId: 'triage-1', finishedAt: '2026-03-01T11:40:00.000Z', snapshotAt: '2026-03-01T11:39:00.000Z', total: 3, critical: 2, warning: 1 });
    expect(b.triageQueue.map((e) => [e.rank, e.incidentId, e.stillOpen])).toEqual([
      [1, 'inc-1', true],
      [2, null, false],
      [3, null, null],
    ]);
    expect(b.untriagedOpenCount).toBe(1);
    expect(b.open.map((i) => i.incidentId)).toEqual(['inc-1', 'inc-2']);
    const none = composeCompanionIncidents({ now: NOW, rollup: rollup(), open: [], triageRun: null });
    expect(none).toMatchObject({ triage: null, triageQueue: [], open: [], untriagedOpenCount: 0, truncation: [] });
  });

  it('approvals: oldest first, capped at 20 with the cut named', () => {
    const pending = Array.from({ length: 25 }, (_, i) => ({
      taskId: `t${i}`,
      runId: `r${i}`,
      type: 'build-refactor',
      requestedAt: `2026-03-01T10:${String(i).padStart(2, '0')}:00.000Z`,
      impact: { riskLevel: 'high', approvalReason: 'approval-gated by default' },
    }));
    const a = composeCompanionApprovals(NOW, { count: 25, pending });
    expect(a.pendingCount).toBe(25);
    expect(a.oldestRequestedAt).toBe('2026-03-01T10:00:00.000Z');
    expect(a.approvals).toHaveLength(20);
    expect(a.approvals[0]).toEqual({ taskId: 't0', runId: 'r0', type: 'build-refactor', requestedAt: '2026-03-01T10:00:00.000Z', riskLevel: 'high', approvalReason: 'approval-gated by default' });
    expect(a.truncation).toEqual(['approvals: 5 of 25 items left out']);
  });

  it('fitBrief halves the largest list until the brief fits the byte cap, and says so', () => {
    const big = { generatedAt: 'x', items: Array.from({ length: 100 }, (_, i) => ({ i, text: 'y'.repeat(200) })), other: [1, 2] };
    const fitted = fitBrief(big, { items: 100, other: 10 }, 4096);
    expect(fitted.bytes).toBeLessThanOrEqual(4096);
    expect(fitted.bytes).toBe(Buffer.byteLength(JSON.stringify(fitted)));
    expect(fitted.items.length).toBeGreaterThan(0);
    expect(fitted.items.length).toBeLessThan(20);
    expect(fitted.truncation[0]).toMatch(/^items: \d+ more items left out to fit 4096 bytes$/);
    expect(fitted.other).toEqual([1, 2]);
  });
});
