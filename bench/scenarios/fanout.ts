/**
 * Fan-out of live events (issue 27): 1,000 subscribers on GET /api/events while doc-sync runs are
 * admitted at a steady rate and finish (three events each: admitted, started, succeeded).
 *
 * - Latency from each event's `at` to its arrival at each subscriber, p50 and p99 over every
 *   (event, subscriber) pair, against a bare node:http server broadcasting the same number of
 *   frames of the same size at the same rate to the same number of clients (its `at` is the
 *   broadcast). The service's `at` is taken when the write is made, so its figure includes the
 *   write's own commit (fsync): an upper bound of commit-to-client.
 * - Admission throughput (autocannon, closed loop) with no subscriber, then with the subscribers
 *   following every event, and the ratio.
 * - Heap per idle subscriber: the service's heapUsed (its /metrics) before and after they connect.
 *
 * Checks its own work: every subscriber of the service and of the bare server received every
 * event of every run, each once and in order, or the row fails.
 */
import { join } from 'node:path';
import { requestJson } from '../lib/http.js';
import { runLoad } from '../lib/load.js';
import { runOpenLoop } from '../lib/open-loop.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, OPERATOR_KEY, serviceAvailable, SKIP_SERVICE_REASON, unfinishedRuns, VIEWER_KEY } from '../lib/service.js';
import { openSubscribers, type SubscriberPool } from '../lib/sse-subscribers.js';
import { percentile } from '../lib/stats.js';
import { errorMessage, rssMiB, sleep, waitFor } from '../lib/util.js';

const SERVICE = 'service (json file)';
const BARE = 'bare node:http';
const EVENTS_PER_RUN = 3;

/** The service's heapUsed from its /metrics, median of three readings. */
async function heapUsed(metricsUrl: string | null): Promise<number | null> {
  if (metricsUrl === null) return null;
  const readings: number[] = [];
  for (let i = 0; i < 3; i++) {
    const res = await requestJson<string>(metricsUrl);
    const match = /^nodejs_heap_size_used_bytes (\d+(?:\.\d+)?)/m.exec(String(res.body));
    if (match) readings.push(Number(match[1]));
    await sleep(200);
  }
  return readings.length ? readings.sort((a, b) => a - b)[Math.floor(readings.length / 2)]! : null;
}

/** Waits until every subscriber holds `expected` events of the runs named `prefix…`; returns how many do. */
async function waitForAll(pool: SubscriberPool, prefix: string, expected: number, timeoutMs: number): Promise<number> {
  const complete = () => pool.counts(prefix).filter((n) => n === expected).length;
  await waitFor(async () => (complete() === pool.size || pool.dropped() > 0 ? true : null), { timeoutMs, intervalMs: 100 });
  return complete();
}

function latencyRows(ctx: ScenarioContext, service: number[], bare: number[] | null): void {
  for (const [metric, p] of [
    ['commit→client p50', 50],
    ['commit→client p99', 99],
  ] as const) {
    ctx.rows.add({
      subject: SERVICE,
      metric,
      unit: 'ms',
      value: percentile(service, p),
      better: 'lower',
      ...(bare ? { baseline: { subject: BARE, value: percentile(bare, p) } } : {}),
      note: `${service.length} deliveries; from the event's at (taken before its commit) to arrival`,
    });
  }
}

export const fanout: Scenario = {
  name: 'fanout',
  title: 'Live events to 1,000 subscribers of /api/events: latency vs a bare node:http broadcaster, admission with and without them, heap per subscriber',
  async run(ctx) {
    const s = ctx.settings.fanout;
    if (!serviceAvailable()) {
      ctx.rows.skip(SERVICE, 'fan-out', SKIP_SERVICE_REASON);
      return;
    }
    const service = await launchService({
      store: 'json',
      config: { concurrency: ctx.settings.concurrency, eventStreams: { maxPerKey: s.subscribers + 100 } },
    });
    const viewer = { authorization: `Bearer ${VIEWER_KEY}` };
    const operator = { authorization: `Bearer ${OPERATOR_KEY}` };
    const pools: SubscriberPool[] = [];
    try {
      // Heap per idle subscriber.
      const heapBefore = await heapUsed(service.proc.metricsUrl);
      const rssBefore = rssMiB(service.pid);
      ctx.log(`${s.subscribers} subscribers connect`);
      const pool = await openSubscribers(service.url, '/api/events', viewer, s.subscribers);
      pools.push(pool);
      await sleep(1000);
      const heapAfter = await heapUsed(service.proc.metricsUrl);
      const rssAfter = rssMiB(service.pid);
      ctx.rows.add({
        subject: SERVICE,
        metric: 'heap per idle subscriber',
        unit: 'KiB',
        value: heapBefore !== null && heapAfter !== null ? (heapAfter - heapBefore) / s.subscribers / 1024 : null,
        better: 'lower',
        note: `heapUsed from /metrics, ${s.subscribers} streams open; RSS per subscriber ${rssBefore !== null && rssAfter !== null ? (((rssAfter - rssBefore) * 1024) / s.subscribers).toFixed(1) : '?'} KiB`,
      });

      // Steady admissions while the subscribers follow.
      const prefix = `fan-${Date.now().toString(36)}-`;
      let next = 0;
      const durationSec = Math.max(1, Math.min(s.durationSec, Math.floor(ctx.remainingMs() / 4000)));
      ctx.log(`${s.runsPerSec} runs/s for ${durationSec} s`);
      const steady = await runOpenLoop({
        url: service.url,
        path: '/api/tasks/trigger',
        method: 'POST',
        headers: operator,
        body: () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${prefix}${next++}` } }),
        ratePerSec: s.runsPerSec,
        durationSec,
      });
      const admitted = steady.statusCodes['202'] ?? 0;
      await waitFor(async () => ((await unfinishedRuns(service.url, 'doc-sync')) === 0 ? true : null), { timeoutMs: 30_000, intervalMs: 200 });
      const expected = admitted * EVENTS_PER_RUN;
      const complete = await waitForAll(pool, prefix, expected, 30_000);
      const serviceLatencies = pool.latencies();
      const frameBytes = Math.round(pool.meanFrameBytes());
      ctx.rows.check(
        SERVICE,
        'every subscriber got every event once, in order',
        complete === s.subscribers && pool.broken() === 0 && pool.dropped() === 0 && admitted === steady.sent,
        `${complete}/${s.subscribers} subscribers with all ${expected} events of ${admitted} runs (${steady.sent} sent); ${pool.broken()} out of order, ${pool.dropped()} dropped`,
      );
      pool.close();

      // The same frames, rate and clients from a bare broadcaster.
      const bare = spawnPeer(join(PEERS_DIR, 'bare-sse.ts'), {});
      let bareLatencies: number[] | null = null;
      try {
        const ready = await bare.next<{ type: string; url: string }>('ready', 20_000);
        const barePool = await openSubscribers(ready.url, '/', {}, s.subscribers);
        pools.push(barePool);
        const eventsPerSec = expected / durationSec;
        ctx.log(`${BARE}: ${expected} frames of ${frameBytes} bytes at ${eventsPerSec.toFixed(0)}/s`);
        bare.send({ type: 'broadcast', runs: admitted, eventsPerRun: EVENTS_PER_RUN, eventsPerSec, frameBytes });
        const done = await bare.next<{ type: string; sent: number }>('broadcast-done', durationSec * 1000 + 60_000);
        const bareComplete = await waitForAll(barePool, 'bare-', expected, 30_000);
        bareLatencies = barePool.latencies();
        ctx.rows.check(
          BARE,
          'every client got every frame once, in order',
          bareComplete === s.subscribers && barePool.broken() === 0 && done.sent === expected,
          `${bareComplete}/${s.subscribers} clients with all ${expected} frames; ${barePool.broken()} out of order`,
        );
        barePool.close();
      } catch (err) {
        ctx.rows.skip(BARE, 'commit→client', errorMessage(err));
      } finally {
        await bare.kill();
      }
      latencyRows(ctx, serviceLatencies, bareLatencies);

      // Admission throughput without, then with, the subscribers.
      const admission = async (title: string) => {
        let n = 0;
        const tag = `${prefix}adm-${title}-`;
        const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${tag}${n++}` } });
        return runLoad({
          title,
          url: service.url,
          connections: s.connections,
          method: 'POST',
          path: '/api/tasks/trigger',
          headers: operator,
          body: body(),
          setup: () => ({ body: body() }),
          durationSec: s.admissionSec,
          maxMs: s.admissionSec * 1000 + 10_000,
        });
      };
      ctx.log(`admission ${s.admissionSec} s without subscribers`);
      const without = await admission('without');
      await waitFor(async () => ((await unfinishedRuns(service.url, 'doc-sync')) === 0 ? true : null), { timeoutMs: 30_000, intervalMs: 200 });
      // Light clients: they read every byte but parse nothing, so the figure is the service's cost.
      const following = await openSubscribers(service.url, '/api/events', viewer, s.subscribers, { light: true });
      pools.push(following);
      ctx.log(`admission ${s.admissionSec} s with ${s.subscribers} subscribers following`);
      const withSubscribers = await admission('with');
      ctx.rows.add({
        subject: `${SERVICE}, ${s.subscribers} subscribers`,
        metric: 'admission throughput',
        unit: 'req/s',
        value: withSubscribers.okRps,
        better: 'higher',
        baseline: { subject: `${SERVICE}, no subscriber`, value: without.okRps },
        note: `${withSubscribers.ok2xx} vs ${without.ok2xx} admitted in ${s.admissionSec} s at ${s.connections} connections; subscribers dropped as slow: ${following.dropped()}`,
      });
      ctx.details.fanout = {
        subscribers: s.subscribers,
        steady: { runsPerSec: s.runsPerSec, durationSec, admitted, expectedEvents: expected, frameBytes },
        admission: { without: without.okRps, with: withSubscribers.okRps, droppedWhileAdmitting: following.dropped() },
      };
    } finally {
      for (const pool of pools) pool.close();
      await service.stop();
    }
  },
};
