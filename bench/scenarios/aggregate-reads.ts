/**
 * Latency of the aggregate reads (GET /api/dashboard/overview, GET /api/health/extended) at
 * 10,000 stored runs (quick: 2,000), as a ratio against GET /health measured in the same run.
 * Runs are written straight through the store module while the service is stopped (no 10,000
 * HTTP triggers), then the service restarts on that state.
 *
 * Two cases per route: cached (the same GET repeated under load, answered from the response
 * cache) and uncached (one sequential GET right after a trigger that bumps the runs tag, so every
 * read recomputes the aggregate; the trigger is held for approval and never executes).
 */
import { requestJson } from '../lib/http.js';
import { checkAnswers } from '../lib/answers.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  trigger,
  VIEWER_KEY,
  waitHealthy,
  type StoreKind,
} from '../lib/service.js';
import { summarize } from '../lib/stats.js';
import { storeModuleAvailable, writeTerminalRuns } from '../lib/store-seed.js';
import { errorMessage, waitFor } from '../lib/util.js';

const SIZES = {
  quick: { runs: 2_000, stores: ['json'] as StoreKind[], connections: 10, durationSec: 1.5, uncachedReads: 15 },
  full: { runs: 10_000, stores: ['json', 'sql'] as StoreKind[], connections: 10, durationSec: 4, uncachedReads: 40 },
};

const BASELINE = 'GET /health';
const ROUTES = [
  { name: 'dashboard', path: '/api/dashboard/overview' },
  { name: 'extended health', path: '/api/health/extended' },
] as const;

async function timedGet(url: string, key?: string): Promise<number> {
  const started = performance.now();
  const res = await requestJson(url, key ? { key } : {});
  const ms = performance.now() - started;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}`);
  return ms;
}

/** One real run to copy (the store seeder clones a successful doc-sync run). */
async function recordTemplateRun(url: string): Promise<void> {
  const res = await trigger(url, 'doc-sync', { idempotencyKey: `agg-template-${process.pid}` });
  if (res.code !== 202) throw new Error(`doc-sync trigger answered ${res.code}`);
  const done = await waitFor(
    async () => {
      const r = await requestJson<{ status?: string }>(`${url}/api/tasks/runs/${encodeURIComponent(res.body.runId!)}`, { key: VIEWER_KEY });
      return r.body.status === 'success' ? true : null;
    },
    { timeoutMs: 15_000, intervalMs: 100 },
  );
  if (!done) throw new Error('the template doc-sync run did not succeed in time');
}

async function measureStore(ctx: ScenarioContext, store: StoreKind, size: (typeof SIZES)['full']): Promise<void> {
  const { rows, details } = ctx;
  const subject = storeLabel(store);
  const retention = size.runs * 2;
  let service = await launchService({ store, config: { runRetention: retention } });
  try {
    await recordTemplateRun(service.url);
    ctx.log(`${subject}: writing ${size.runs} runs through the store, then restarting`);
    const written = { n: 0, ms: 0 };
    service = await service.restart(async () => {
      const w = await writeTerminalRuns(store, service.stateDir, `agg-${process.pid}`, size.runs, retention);
      written.n = w.written;
      written.ms = w.ms;
    });
    await waitHealthy(service.url);
    const stored = await runsTotal(service.url, {});
    rows.add({ subject, metric: 'stored runs', unit: '', value: stored, note: `${written.n} written through the store in ${Math.round(written.ms)} ms` });

    // Uncached: health, then each aggregate right after a held trigger invalidated the cache.
    const health: number[] = [];
    const misses: Record<string, number[]> = Object.fromEntries(ROUTES.map((r) => [r.name, []]));
    for (let i = 0; i < size.uncachedReads; i++) {
      health.push(await timedGet(`${service.url}/health`));
      for (const route of ROUTES) {
        const t = await trigger(service.url, 'summarize-content', { content: 'bench', requiresApproval: true, idempotencyKey: `agg-held-${route.name.replace(/\s+/g, '-')}-${i}` });
        if (t.code !== 202) throw new Error(`held trigger answered ${t.code}`);
        misses[route.name]!.push(await timedGet(`${service.url}${route.path}`, VIEWER_KEY));
      }
    }
    const healthSeq = summarize(health);
    details[`${subject} uncached`] = { health: healthSeq, ...Object.fromEntries(ROUTES.map((r) => [r.name, summarize(misses[r.name]!)])) };
    rows.add({ subject: BASELINE, metric: `${store} sequential p50`, unit: 'ms', value: healthSeq.p50, better: 'lower' });
    for (const route of ROUTES) {
      const s = summarize(misses[route.name]!);
      rows.add({ subject, metric: `${route.name} uncached p50`, unit: 'ms', value: s.p50, better: 'lower', baseline: { subject: BASELINE, value: healthSeq.p50 }, note: `${s.count} sequential reads, each after a cache invalidation` });
      rows.add({ subject, metric: `${route.name} uncached p99`, unit: 'ms', value: s.p99, better: 'lower', baseline: { subject: BASELINE, value: healthSeq.p99 } });
    }

    // Cached: the same GET under load, against /health under the same load.
    const per = Math.max(0.5, Math.min(size.durationSec, (ctx.remainingMs() - 5000) / 1000 / 3));
    const load = (path: string, key?: string): Promise<LoadSummary> =>
      runLoad({
        title: path,
        url: service.url,
        connections: size.connections,
        durationSec: per,
        maxMs: Math.floor(per * 1000 + 5000),
        path,
        headers: key ? { authorization: `Bearer ${key}` } : {},
        countCache: true,
      });
    const base = await load('/health');
    details[`${subject} cached /health`] = base;
    rows.add({ subject: BASELINE, metric: `${store} under load p50`, unit: 'ms', value: base.latencyMs.p50, better: 'lower', note: `${size.connections} connections` });
    checkAnswers(rows, BASELINE, `${store} under load`, base);
    for (const route of ROUTES) {
      await requestJson(`${service.url}${route.path}`, { key: VIEWER_KEY }); // warm the entry
      const s = await load(route.path, VIEWER_KEY);
      details[`${subject} cached ${route.name}`] = s;
      const c = s.cache;
      const hits = c ? `X-Svc-Cache hit ${Math.round((c.hit / Math.max(1, c.hit + c.miss + c.none)) * 100)}%` : '';
      rows.add({ subject, metric: `${route.name} cached p50`, unit: 'ms', value: s.latencyMs.p50, better: 'lower', baseline: { subject: BASELINE, value: base.latencyMs.p50 }, note: hits });
      rows.add({ subject, metric: `${route.name} cached req/s`, unit: '', value: s.okRps, better: 'higher', baseline: { subject: BASELINE, value: base.okRps } });
      checkAnswers(rows, subject, `${route.name} cached`, s);
    }
  } finally {
    await service.stop();
  }
}

export const aggregateReads: Scenario = {
  name: 'aggregate-reads',
  title: 'Dashboard and extended health latency at 10,000 stored runs, against GET /health',
  async run(ctx) {
    const size = SIZES[ctx.mode];
    if (!serviceAvailable() || !storeModuleAvailable()) {
      for (const store of size.stores) ctx.rows.skip(storeLabel(store), 'aggregate reads', SKIP_SERVICE_REASON);
      return;
    }
    for (const store of size.stores) {
      if (ctx.remainingMs() < 15_000) {
        ctx.rows.skip(storeLabel(store), 'aggregate reads', 'time budget spent');
        continue;
      }
      try {
        await measureStore(ctx, store, size);
      } catch (err) {
        ctx.rows.add({ subject: storeLabel(store), metric: 'aggregate reads', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        ctx.details[`${store} error`] = String(err);
      }
    }
  },
};
