/**
 * Fan-out of live events (issue 27): 1,000 subscribers on GET /api/events while doc-sync runs are
 * admitted at a steady rate and finish (three events each: admitted, started, succeeded).
 *
 * - Latency from each event's `at` to its arrival at each subscriber, p50 and p99 over every
 *   (event, subscriber) pair, against a bare node:http server broadcasting the same number of
 *   frames of the same size at the same rate to the same number of clients (its `at` is taken as
 *   the frame is made, just before its writes). The service's `at` is taken when the write is
 *   made, so its figure includes the write's own commit (fsync): an upper bound of
 *   commit-to-client. Rounds alternate, service then bare, twice (A/B/A/B); each side's best
 *   round (lowest p99) is reported, every round's p99 in the note: on a shared machine a round
 *   can lose a core to something else for a second.
 * - Admission throughput (autocannon, closed loop, same settings each round) without subscribers
 *   and with them following every event, in rounds without/with/with/without from an idle
 *   service after an uncounted warm-up round, best of each; the ratio. The note adds the
 *   service's main-thread CPU per admission of every round, which the shared machine disturbs
 *   less than req/s.
 * - Heap per idle subscriber: the service's heapUsed (its /metrics) before and after they connect.
 *
 * The subscribers live in child processes of their own (bench/lib/sse-subscribers.ts), never on
 * the event loop that drives the load or waits for results.
 *
 * Checks its own work: every subscriber of the service and of the bare server received every
 * event of every run of every round, each once and in order, and none was dropped while
 * admissions ran; a failed check also marks the figures it guards as failed.
 */
import { join } from 'node:path';
import { requestJson } from '../lib/http.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import { runOpenLoop } from '../lib/open-loop.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer, type PeerProcess } from '../lib/peer-process.js';
import type { Row } from '../lib/results.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, OPERATOR_KEY, serviceAvailable, SKIP_SERVICE_REASON, unfinishedRuns, VIEWER_KEY, type BenchService } from '../lib/service.js';
import { openSubscribers, type SubscriberPool } from '../lib/sse-subscribers.js';
import { percentile } from '../lib/stats.js';
import { errorMessage, mainThreadCpuMs, rssMiB, sleep, waitFor } from '../lib/util.js';

const SERVICE = 'service (json file)';
const BARE = 'bare node:http';
const EVENTS_PER_RUN = 3;
const LATENCY_ROUNDS = 3;
/** Admission rounds without and with the subscribers, alternated (A,B,A,B,A,B). */
const ADMISSION_ROUNDS = 3;

/** One side's round of the latency comparison. */
interface Round {
  p50: number;
  p99: number;
  deliveries: number;
  /** Every client got every event of the round once, in order. */
  ok: boolean;
  detail: string;
}

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

/** Waits until every client holds `expected` events of the runs named `prefix…` (or one dropped); returns the round's figures. */
async function finishRound(pool: SubscriberPool, prefix: string, expected: number, what: string): Promise<Round> {
  const complete = (counts: number[]) => counts.filter((n) => n === expected).length;
  let tally = await pool.tally(prefix);
  await waitFor(
    async () => {
      tally = await pool.tally(prefix);
      return complete(tally.counts) === pool.size || tally.dropped > 0 ? true : null;
    },
    { timeoutMs: 30_000, intervalMs: 100 },
  );
  const latencies = Array.from(await pool.takeLatencies());
  const done = complete(tally.counts);
  return {
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    deliveries: latencies.length,
    ok: done === pool.size && tally.broken === 0 && tally.dropped === 0 && expected > 0,
    detail: `${done}/${pool.size} clients with all ${expected} ${what}; ${tally.broken} out of order, ${tally.dropped} dropped`,
  };
}

const drained = (service: BenchService) =>
  waitFor(async () => ((await unfinishedRuns(service.url, 'doc-sync')) === 0 ? true : null), { timeoutMs: 30_000, intervalMs: 200 });

/** The lowest-p99 round, and every round's p99 for the note. */
function best(rounds: Round[]): { round: Round; all: string } {
  const round = rounds.reduce((a, b) => (b.p99 < a.p99 ? b : a));
  return { round, all: rounds.map((r) => `${r.p99.toFixed(0)}`).join(', ') };
}

function latencyRows(ctx: ScenarioContext, service: Round[], bare: Round[]): Row[] {
  const mine = best(service);
  const theirs = bare.length > 0 ? best(bare) : null;
  return (['p50', 'p99'] as const).map((p) =>
    ctx.rows.add({
      subject: SERVICE,
      metric: `commit→client ${p}`,
      unit: 'ms',
      value: mine.round[p],
      better: 'lower',
      ...(theirs ? { baseline: { subject: BARE, value: theirs.round[p] } } : {}),
      note: `best of ${service.length} rounds (p99 per round: service ${mine.all}${theirs ? `; bare ${theirs.all}` : ''} ms); ${mine.round.deliveries} deliveries; from the event's at (taken before its commit) to arrival`,
    }),
  );
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
    const pools = new Set<SubscriberPool>();
    const open = async (...args: Parameters<typeof openSubscribers>) => {
      const pool = await openSubscribers(...args);
      pools.add(pool);
      return pool;
    };
    const close = async (pool: SubscriberPool) => {
      pools.delete(pool);
      await pool.close();
    };
    let bare: PeerProcess | null = null;
    const tag = Date.now().toString(36);
    try {
      // Heap per idle subscriber.
      const heapBefore = await heapUsed(service.proc.metricsUrl);
      const rssBefore = rssMiB(service.pid);
      ctx.log(`${s.subscribers} subscribers connect`);
      const pool = await open(service.url, '/api/events', viewer, s.subscribers);
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

      // The bare broadcaster and its clients wait beside the service's, idle until their rounds.
      let barePool: SubscriberPool | null = null;
      try {
        bare = spawnPeer(join(PEERS_DIR, 'bare-sse.ts'), {});
        const ready = await bare.next<{ type: string; url: string }>('ready', 20_000);
        barePool = await open(ready.url, '/', {}, s.subscribers);
      } catch (err) {
        ctx.rows.skip(BARE, 'commit→client', errorMessage(err));
      }

      // Latency rounds: steady admissions while the subscribers follow, then the same frames from the bare broadcaster.
      const durationSec = Math.max(1, Math.min(s.durationSec, Math.floor(ctx.remainingMs() / 12_000)));
      const serviceRounds: Round[] = [];
      const bareRounds: Round[] = [];
      const steadyRuns: number[] = [];
      for (let round = 1; round <= LATENCY_ROUNDS; round++) {
        if (round > 1 && ctx.remainingMs() < durationSec * 4000 + 40_000) break;
        const prefix = `fan-${tag}-${round}-`;
        let next = 0;
        ctx.log(`round ${round}: service, ${s.runsPerSec} runs/s for ${durationSec} s`);
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
        steadyRuns.push(admitted);
        await drained(service);
        const expected = admitted * EVENTS_PER_RUN;
        const mine = await finishRound(pool, prefix, expected, `events of ${admitted} runs`);
        if (admitted !== steady.sent) {
          mine.ok = false;
          mine.detail += `; only ${admitted} of ${steady.sent} triggers admitted`;
        }
        serviceRounds.push(mine);
        if (bare === null || barePool === null) continue;

        const frameBytes = Math.round((await pool.tally(prefix)).meanFrameBytes);
        const eventsPerSec = expected / durationSec;
        const barePrefix = `bare-${tag}-${round}-`;
        ctx.log(`round ${round}: ${BARE}, ${expected} frames of ${frameBytes} bytes at ${eventsPerSec.toFixed(0)}/s`);
        bare.send({ type: 'broadcast', prefix: barePrefix, runs: admitted, eventsPerRun: EVENTS_PER_RUN, eventsPerSec, frameBytes });
        const done = await bare.next<{ type: string; sent: number }>('broadcast-done', durationSec * 1000 + 60_000);
        const theirs = await finishRound(barePool, barePrefix, expected, 'frames');
        if (done.sent !== expected) theirs.ok = false;
        bareRounds.push(theirs);
      }
      const serviceOk = ctx.rows.check(
        SERVICE,
        'every subscriber got every event once, in order',
        serviceRounds.every((r) => r.ok),
        serviceRounds.map((r, i) => `round ${i + 1}: ${r.detail}`).join('; '),
      );
      const bareOk =
        bareRounds.length === 0 ||
        ctx.rows.check(
          BARE,
          'every client got every frame once, in order',
          bareRounds.every((r) => r.ok),
          bareRounds.map((r, i) => `round ${i + 1}: ${r.detail}`).join('; '),
        );
      for (const row of latencyRows(ctx, serviceRounds, bareRounds)) if (!serviceOk || !bareOk) row.failed = true;
      if (bareRounds.length > 0) {
        ctx.rows.compare({ id: 'fanout/p99', subject: SERVICE, baseline: BARE, metric: 'commit→client p99', unit: 'ms', better: 'lower', rounds: serviceRounds.map((r, i) => ({ value: r.p99, baseline: bareRounds[i]?.p99 ?? null })) });
      }
      const frameBytes = Math.round((await pool.tally(`fan-${tag}-`)).meanFrameBytes);
      if (barePool !== null) await close(barePool);
      await bare?.kill();
      bare = null;
      await close(pool);

      // Admission throughput: a warm-up round (not counted: the first burst of a fresh service is
      // the slowest), then rounds without/with/with/without subscribers, each from an idle service.
      interface AdmissionRound {
        load: LoadSummary;
        /** The service's main-thread CPU per admitted request (its runs draining meanwhile included). */
        cpuMs: number | null;
      }
      const admission = async (title: string, durationSec = s.admissionSec): Promise<AdmissionRound> => {
        let n = 0;
        const keyTag = `adm-${tag}-${title}-`;
        const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${keyTag}${n++}` } });
        await drained(service);
        const cpuBefore = mainThreadCpuMs(service.pid);
        const load = await runLoad({
          title,
          url: service.url,
          connections: s.connections,
          method: 'POST',
          path: '/api/tasks/trigger',
          headers: operator,
          body: body(),
          setup: () => ({ body: body() }),
          durationSec,
          maxMs: durationSec * 1000 + 10_000,
        });
        const cpuAfter = mainThreadCpuMs(service.pid);
        return { load, cpuMs: cpuBefore !== null && cpuAfter !== null && load.ok2xx > 0 ? (cpuAfter - cpuBefore) / load.ok2xx : null };
      };
      const without: AdmissionRound[] = [];
      const withSubscribers: AdmissionRound[] = [];
      let dropped = 0;
      ctx.log('admission warm-up, 1 s');
      await admission('warm-up', 1);
      for (let round = 1; round <= ADMISSION_ROUNDS; round++) {
        ctx.log(`admission round ${round}: ${s.admissionSec} s without subscribers, then with ${s.subscribers} following`);
        without.push(await admission(`without-${round}`));
        // Light clients: they read every byte but parse nothing, so the figure is the service's cost.
        const following = await open(service.url, '/api/events', viewer, s.subscribers, { light: true });
        await sleep(500);
        withSubscribers.push(await admission(`with-${round}`));
        await drained(service);
        dropped += (await following.tally('')).dropped;
        await close(following);
      }
      ctx.rows.compare({
        id: 'fanout/admission',
        subject: `${SERVICE}, ${s.subscribers} subscribers`,
        baseline: `${SERVICE}, no subscriber`,
        metric: 'admission req/s',
        unit: 'req/s',
        better: 'higher',
        rounds: withSubscribers.map((r, i) => ({ value: r.load.okRps, baseline: without[i]?.load.okRps ?? null })),
      });
      const top = (rounds: AdmissionRound[]) => rounds.reduce((a, b) => (b.load.okRps > a.load.okRps ? b : a)).load;
      const bestWith = top(withSubscribers);
      const bestWithout = top(without);
      const rps = (rounds: AdmissionRound[]) => rounds.map((r) => r.load.okRps.toFixed(0)).join(', ');
      const cpu = (rounds: AdmissionRound[]) => rounds.map((r) => (r.cpuMs === null ? '?' : r.cpuMs.toFixed(2))).join(', ');
      const followOk = ctx.rows.check(
        `${SERVICE}, ${s.subscribers} subscribers`,
        'no subscriber dropped while admissions ran',
        dropped === 0,
        `${dropped} drops over ${ADMISSION_ROUNDS} rounds of ${s.subscribers} subscribers`,
      );
      const admissionRow = ctx.rows.add({
        subject: `${SERVICE}, ${s.subscribers} subscribers`,
        metric: 'admission throughput',
        unit: 'req/s',
        value: bestWith.okRps,
        better: 'higher',
        baseline: { subject: `${SERVICE}, no subscriber`, value: bestWithout.okRps },
        note: `best of ${ADMISSION_ROUNDS} alternated rounds each (${s.admissionSec} s at ${s.connections} connections, from an idle service, after a warm-up round); req/s with: ${rps(withSubscribers)}, without: ${rps(without)}; service main-thread CPU ms per admission with: ${cpu(withSubscribers)}, without: ${cpu(without)}`,
      });
      if (!followOk) admissionRow.failed = true;
      ctx.details.fanout = {
        subscribers: s.subscribers,
        steady: { runsPerSec: s.runsPerSec, durationSec, admittedPerRound: steadyRuns, eventsPerRun: EVENTS_PER_RUN, frameBytes },
        latencyRounds: { service: serviceRounds, bare: bareRounds },
        admission: {
          without: without.map((r) => ({ okRps: r.load.okRps, cpuMsPerAdmission: r.cpuMs })),
          with: withSubscribers.map((r) => ({ okRps: r.load.okRps, cpuMsPerAdmission: r.cpuMs })),
          droppedWhileAdmitting: dropped,
        },
      };
    } finally {
      await bare?.kill();
      for (const pool of pools) await pool.close();
      await service.stop();
    }
  },
};
