import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { LlmConfig } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import type { IncidentReadPort } from '../../src/incidents/read-port.js';
import { emptyIncidentReadPort } from '../support/incident-rollup.js';

import { createMetrics, type Metrics } from '../../src/metrics.js';
import { createModels } from '../../src/models/index.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { withEvent } from '../../src/runtime/run-transitions.js';
import { agentRegistry, registeredAgent } from '../support/agents.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { startFakeOpenAi, type FakeOpenAi } from '../support/fake-openai.js';
import { seriesValue } from '../support/metrics-text.js';
import { admittedRun, insertIfAbsent, markRunning } from '../support/runs.js';

const TYPES = ['summarize-content', 'build-refactor'];
const MODELS = ['small-model'];
/** The label names the run metrics may carry (`le` is a histogram bucket's bound). */
const ALLOWED_LABELS = new Set(['type', 'status', 'severity', 'model', 'le']);
const RUN_METRIC = /^orchestrator_(runs_|run_|worker_spawn|model_|approval|incidents_)/;

let fake: FakeOpenAi | null = null;
let store: StateStore | null = null;
afterEach(async () => {
  await fake?.close();
  await store?.close();
  fake = null;
  store = null;
});

async function openStore(): Promise<StateStore> {
  store = openStateStore(join(tempDir('run-metrics-'), 'state.json'));
  await store.open();
  return store;
}

function measured(metrics: Metrics = createMetrics()) {
  return { metrics, runMetrics: metrics.runMetrics({ types: TYPES, models: MODELS }) };
}

/** Every series of the run metrics with its labels (from the registry, as a scrape formats them). */
async function runSeries(metrics: Metrics): Promise<Array<{ name: string; labels: Record<string, string | number> }>> {
  const all = await metrics.registry.getMetricsAsJSON();
  return all
    .filter((m) => RUN_METRIC.test(m.name))
    .flatMap((m) => m.values.map((v) => ({ name: (v as { metricName?: string }).metricName ?? m.name, labels: v.labels as Record<string, string | number> })));
}

describe('model call metrics, counted from the calls the gateway records on runs', () => {
  it('counts calls by model and outcome, and their tokens and cost', async () => {
    fake = await startFakeOpenAi();
    const observed = measured();
    const runStore = observed.runMetrics.observeStore(await openStore());
    const config: LlmConfig = {
      apiKey: 'sk-test-provider-key-0123456789abcdef',
      baseUrl: fake.baseUrl,
      models: { standard: 'small-model' },
      prices: { 'small-model': { inputPerMillionTokensUsd: 1, outputPerMillionTokensUsd: 4 } },
      dailyBudgetUsd: null,
      timeoutMs: 2_000,
      maxRetries: 0,
      allowPrivateBaseUrl: true,
    };
    const registry = agentRegistry([registeredAgent('summarization-agent', ['summarize-content'], { model: { tier: 'standard', provider: null, name: null } })]);
    const models = createModels({
      config,
      store: runStore,
      coordination: new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 }),
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      registry,
      secrets: [],
    });
    await runStore.mutateRun('m-1', insertIfAbsent(markRunning(admittedRun({ runId: 'm-1', type: 'summarize-content' }))));
    const request = { runId: 'm-1', attempt: 1, lane: 'summarize-content', messages: [{ role: 'user' as const, content: 'Summarize this.' }], maxTokens: 200 };

    fake.script({ text: 'one', usage: { prompt_tokens: 1000, completion_tokens: 500 } }, { text: 'two', usage: { prompt_tokens: 3000, completion_tokens: 250 } }, { status: 500 });
    expect((await models.gateway.complete(request)).ok).toBe(true);
    expect((await models.gateway.complete(request)).ok).toBe(true);
    expect((await models.gateway.complete(request)).ok).toBe(false);

    const text = await observed.metrics.registry.metrics();
    expect(seriesValue(text, 'orchestrator_model_calls_total{model="small-model",status="ok"}')).toBe(2);
    expect(seriesValue(text, 'orchestrator_model_calls_total{model="small-model",status="failed"}')).toBe(1);
    expect(seriesValue(text, 'orchestrator_model_input_tokens_total{model="small-model"}')).toBe(4000);
    expect(seriesValue(text, 'orchestrator_model_output_tokens_total{model="small-model"}')).toBe(750);
    // 4,000 in at 1 USD and 750 out at 4 USD per million tokens.
    expect(seriesValue(text, 'orchestrator_model_cost_usd_total{model="small-model"}')).toBeCloseTo(0.007, 9);
    expect(text).not.toContain('model="other"');
  });
});

describe('label sets stay bounded', () => {
  it('counts unknown types, statuses, models and severities under `other`, however many distinct values arrive', async () => {
    const observed = measured();
    const runStore = observed.runMetrics.observeStore(await openStore());
    observed.runMetrics.readSharedState({
      store: runStore,
      incidents: { rollup: async () => ({ ...(await emptyIncidentReadPort.rollup()), bySeverity: { critical: 1, warning: 0, info: 0, ...{ 'sev-made-up': 4 } } }) },
      now: () => new Date(),
    });
    const before = (await runSeries(observed.metrics)).length;

    // A hundred runs of made-up types, each claimed, calling a made-up model, and failing: every
    // value is new, and none may become a series of its own.
    for (let i = 0; i < 100; i += 1) {
      const runId = `made-up-${i}`;
      const type = `type-${i}`;
      await runStore.mutateRun(runId, insertIfAbsent(admittedRun({ runId, type })));
      await runStore.claimNextRun({ typeLimits: {} }, (run) => ({ ...markRunning(run), startedAt: new Date().toISOString() }));
      await runStore.mutateRun(runId, (run) =>
        run === null
          ? null
          : withEvent(run, new Date(), { kind: 'execution', name: 'model-call', data: { model: `model-${i}`, outcome: `outcome-${i}`, inputTokens: 10, outputTokens: 1, costUsd: 0.5 } }),
      );
      await runStore.mutateRun(runId, (run) => (run === null ? null : { ...run, status: 'failed', finishedAt: new Date().toISOString(), failureReason: 'x', error: 'x' }));
    }
    const series = await runSeries(observed.metrics);
    const text = await observed.metrics.registry.metrics();

    for (const { name, labels } of series) {
      for (const label of Object.keys(labels)) expect(ALLOWED_LABELS.has(label), `${name} has label ${label}`).toBe(true);
      if (typeof labels.type === 'string') expect([...TYPES, 'other']).toContain(labels.type);
      if (typeof labels.model === 'string') expect([...MODELS, 'other']).toContain(labels.model);
      if (typeof labels.severity === 'string') expect(['critical', 'warning', 'info', 'other']).toContain(labels.severity);
    }
    expect(seriesValue(text, 'orchestrator_runs_finished_total{type="other",status="failed"}')).toBe(100);
    expect(seriesValue(text, 'orchestrator_run_attempts_total{type="other"}')).toBe(100);
    expect(seriesValue(text, 'orchestrator_run_duration_seconds_count{type="other"}')).toBe(100);
    expect(seriesValue(text, 'orchestrator_model_calls_total{model="other",status="other"}')).toBe(100);
    expect(seriesValue(text, 'orchestrator_model_input_tokens_total{model="other"}')).toBe(1000);
    expect(seriesValue(text, 'orchestrator_incidents_open{severity="other"}')).toBe(4);
    // What the hundred runs added: `other` series, once each (the histograms' buckets among them), never one per value.
    const added = series.length - before;
    expect(added).toBeLessThan(60);
    const growth = series.length;
    const more = `made-up-again`;
    await runStore.mutateRun(more, insertIfAbsent(admittedRun({ runId: more, type: 'yet-another-type' })));
    await runStore.claimNextRun({ typeLimits: {} }, (run) => ({ ...markRunning(run), startedAt: new Date().toISOString() }));
    await runStore.mutateRun(more, (run) => (run === null ? null : { ...run, status: 'success', finishedAt: new Date().toISOString() }));
    expect((await runSeries(observed.metrics)).length).toBe(growth + 1); // runs_finished{other,success}, its first count
  });
});

describe('queue wait by limit bucket', () => {
  it('observes a claimed run\'s wait under each bucket that held it back, and nothing for runs no bucket held', async () => {
    const limits = [
      { name: 'deploys', match: { keyPrefix: 'env/' }, perKey: 1 },
      { name: 'builds', match: { types: ['build-refactor'] }, concurrency: 1 },
      { name: 'roomy', match: {}, concurrency: 100 },
    ];
    const metrics = createMetrics();
    const runMetrics = metrics.runMetrics({ types: TYPES, models: MODELS, buckets: limits });
    const runStore = runMetrics.observeStore(await openStore());
    const admitted = new Date(Date.now() - 60_000);
    const runs = [
      { runId: 'w-1', type: 'build-refactor', key: 'env/prod' }, // first of its key and type: claimed at once
      { runId: 'w-2', type: 'build-refactor', key: 'env/prod' }, // held by deploys (its key) and builds
      { runId: 'w-3', type: 'summarize-content', key: 'env/stage' }, // matched by deploys, never held
      { runId: 'w-4', type: 'summarize-content', key: 'tenant-a' }, // matched by roomy alone
    ];
    for (const run of runs) {
      await runStore.mutateRun(run.runId, insertIfAbsent({ ...admittedRun({ runId: run.runId, type: run.type, now: admitted }), concurrencyKey: run.key }));
    }
    const claimAt = async (waitedSeconds: number) => {
      const now = new Date(admitted.getTime() + waitedSeconds * 1000);
      const claimed = await runStore.claimRuns!({ typeLimits: {}, buckets: limits, now }, 10, (r) => ({ ...markRunning(r), startedAt: now.toISOString() }));
      return claimed.map((run) => run.runId).sort();
    };
    expect(await claimAt(2.5)).toEqual(['w-1', 'w-3', 'w-4']);
    await runStore.mutateRun('w-1', (run) => (run === null ? null : { ...run, status: 'success', queueState: null, finishedAt: new Date().toISOString() }));
    expect(await claimAt(20)).toEqual(['w-2']);
    const text = await metrics.registry.metrics();
    expect(seriesValue(text, 'orchestrator_queue_bucket_wait_seconds_count{bucket="deploys"}')).toBe(1);
    expect(seriesValue(text, 'orchestrator_queue_bucket_wait_seconds_sum{bucket="deploys"}')).toBeCloseTo(20);
    expect(seriesValue(text, 'orchestrator_queue_bucket_wait_seconds_bucket{le="10",bucket="deploys"}')).toBe(0);
    expect(seriesValue(text, 'orchestrator_queue_bucket_wait_seconds_count{bucket="builds"}')).toBe(1);
    expect(seriesValue(text, 'orchestrator_queue_bucket_wait_seconds_sum{bucket="builds"}')).toBeCloseTo(20);
    // Every claimed run is in the per-type histogram; only held ones in a bucket's.
    expect(seriesValue(text, 'orchestrator_run_queue_wait_seconds_count{type="summarize-content"}')).toBe(2);
    expect(seriesValue(text, 'orchestrator_run_queue_wait_seconds_count{type="build-refactor"}')).toBe(2);
    const series = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === 'orchestrator_queue_bucket_wait_seconds')!;
    const labelNames = new Set(series.values.flatMap((v) => Object.keys(v.labels)));
    expect([...labelNames].sort()).toEqual(['bucket', 'le']);
    expect(new Set(series.values.map((v) => v.labels.bucket))).toEqual(new Set(['deploys', 'builds']));
  });
});

describe('gauges of shared state, read from the store at scrape time', () => {
  async function heldRun(runStore: StateStore, runId: string, requestedAt: string): Promise<void> {
    const run = admittedRun({ runId, type: 'build-refactor', approvalRequired: true, approvalReason: 'gated', now: new Date(requestedAt) });
    await runStore.mutateRun(runId, insertIfAbsent(run));
  }

  it('shows executing runs by type, pending approvals with the age of the oldest one, and open incidents by severity', async () => {
    const runStore = await openStore();
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    const { metrics, runMetrics } = measured();
    const incidents: Pick<IncidentReadPort, 'rollup'> = { rollup: async () => ({ ...(await emptyIncidentReadPort.rollup()), bySeverity: { critical: 2, warning: 1, info: 0 } }) };
    runMetrics.readSharedState({ store: runStore, incidents, now: () => clock.now() });

    for (const runId of ['e-1', 'e-2']) await runStore.mutateRun(runId, insertIfAbsent(markRunning(admittedRun({ runId, type: 'summarize-content' }))));
    await heldRun(runStore, 'h-old', '2026-03-01T09:58:30.000Z');
    await heldRun(runStore, 'h-new', '2026-03-01T09:59:00.000Z');

    const text = await metrics.registry.metrics();
    expect(seriesValue(text, 'orchestrator_runs_executing{type="summarize-content"}')).toBe(2);
    expect(seriesValue(text, 'orchestrator_runs_executing{type="build-refactor"}')).toBe(0);
    expect(seriesValue(text, 'orchestrator_runs_executing{type="other"}')).toBe(0);
    expect(seriesValue(text, 'orchestrator_approvals_pending')).toBe(2);
    expect(seriesValue(text, 'orchestrator_approval_oldest_pending_age_seconds')).toBe(90);
    expect(seriesValue(text, 'orchestrator_incidents_open{severity="critical"}')).toBe(2);
    expect(seriesValue(text, 'orchestrator_incidents_open{severity="warning"}')).toBe(1);
    expect(seriesValue(text, 'orchestrator_incidents_open{severity="info"}')).toBe(0);
  });

  it('shows the running and waiting runs of each limit bucket and its oldest wait, one series per configured bucket', async () => {
    const runStore = await openStore();
    const clock = fixedClock('2026-03-01T10:00:00.000Z');
    const { metrics, runMetrics } = measured();
    const limits = [
      { name: 'deploys', match: { keyPrefix: 'env/' }, perKey: 1 },
      { name: 'idle', match: { types: ['nightly-batch'] }, concurrency: 1 },
    ];
    runMetrics.readSharedState({ store: runStore, incidents: emptyIncidentReadPort, now: () => clock.now(), limits });
    const keyed = (runId: string, key: string, at: string) => ({ ...admittedRun({ runId, type: 'summarize-content', now: new Date(at) }), concurrencyKey: key });
    await runStore.mutateRun('d-1', insertIfAbsent(markRunning(keyed('d-1', 'env/a', '2026-03-01T09:59:00.000Z'))));
    await runStore.mutateRun('d-2', insertIfAbsent(keyed('d-2', 'env/a', '2026-03-01T09:59:30.000Z')));
    await runStore.mutateRun('d-3', insertIfAbsent(keyed('d-3', 'env/b', '2026-03-01T09:59:50.000Z')));
    const text = await metrics.registry.metrics();
    expect(seriesValue(text, 'orchestrator_queue_bucket_running{bucket="deploys"}')).toBe(1);
    expect(seriesValue(text, 'orchestrator_queue_bucket_waiting{bucket="deploys"}')).toBe(2);
    expect(seriesValue(text, 'orchestrator_queue_bucket_oldest_wait_seconds{bucket="deploys"}')).toBe(30);
    expect(seriesValue(text, 'orchestrator_queue_bucket_waiting{bucket="idle"}')).toBe(0);
  });

  it('reads the store once for every gauge of a scrape, and again only after a few seconds', async () => {
    const runStore = await openStore();
    const { metrics, runMetrics } = measured();
    let reads = 0;
    const counting: Pick<StateStore, 'countRuns' | 'listRuns' | 'queueGroups'> = {
      countRuns: async (internal) => {
        reads += 1;
        return runStore.countRuns(internal);
      },
      listRuns: (query) => runStore.listRuns(query),
      queueGroups: () => runStore.queueGroups(),
    };
    runMetrics.readSharedState({ store: counting, incidents: emptyIncidentReadPort, now: () => new Date() });
    await Promise.all([metrics.registry.metrics(), metrics.registry.metrics()]);
    await metrics.registry.metrics();
    expect(reads).toBe(1);
  });

  it('shows no figure from a store that cannot be read (NaN, or no series by label), and the scrape still answers the counters', async () => {
    const { metrics, runMetrics } = measured();
    const down = async (): Promise<never> => {
      throw new Error('database unavailable');
    };
    runMetrics.readSharedState({ store: { countRuns: down, listRuns: down, queueGroups: down }, incidents: emptyIncidentReadPort, now: () => new Date() });
    const text = await metrics.registry.metrics();
    expect(text).not.toMatch(/^orchestrator_runs_executing\{/m);
    expect(seriesValue(text, 'orchestrator_approvals_pending')).toBeNaN();
    expect(seriesValue(text, 'orchestrator_approval_oldest_pending_age_seconds')).toBeNaN();
    expect(text).not.toMatch(/^orchestrator_incidents_open\{/m);
    expect(seriesValue(text, 'orchestrator_run_attempts_total{type="summarize-content"}')).toBe(0);
  });
});

describe('what a run write counts', () => {
  it('counts a rejected approval as `rejected` and an approved held run as `approved`, never as failed or succeeded', async () => {
    const { metrics, runMetrics } = measured();
    const runStore = runMetrics.observeStore(await openStore());
    const held = (runId: string) => admittedRun({ runId, type: 'build-refactor', approvalRequired: true, approvalReason: 'gated' });
    await runStore.mutateRun('r-1', insertIfAbsent(held('r-1')));
    await runStore.mutateRun('a-1', insertIfAbsent(held('a-1')));
    const settle = (run: RunRecord | null, change: Partial<RunRecord>, approval: 'approved' | 'rejected') =>
      run === null ? null : { ...run, ...change, queueState: null, finishedAt: new Date().toISOString(), approval: { ...run.approval, status: approval } };
    await runStore.mutateRun('r-1', (run) => settle(run, { status: 'failed', failureReason: 'approval_rejected', error: 'rejected' }, 'rejected'));
    await runStore.mutateRun('a-1', (run) => settle(run, { status: 'success', approval: { ...run!.approval, replayRunId: 'approval-replay:a-1' } }, 'approved'));
    const text = await metrics.registry.metrics();
    const finished = (status: string) => seriesValue(text, `orchestrator_runs_finished_total{type="build-refactor",status="${status}"}`);
    expect([finished('rejected'), finished('approved'), finished('failed'), finished('success')]).toEqual([1, 1, 0, 0]);
    expect(seriesValue(text, 'orchestrator_run_duration_seconds_count{type="build-refactor"}')).toBeNull();
  });
});
