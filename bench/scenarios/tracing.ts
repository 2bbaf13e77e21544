/**
 * Tracing's cost on admission: POST /api/tasks/trigger (unique idempotency keys, closed loop,
 * 50 connections) against the built service on the JSON file store, with tracing off (no OTLP
 * endpoint: no SDK loaded) and on (OTEL_EXPORTER_OTLP_ENDPOINT at a loopback OTLP/HTTP receiver
 * started here, which accepts and parses every export). The two alternate in rounds (off, on,
 * off, on) and the best of each is reported, so a host that slows mid-run favours neither.
 * Goal: tracing on >= 0.8x off. Checks: every request answered 202 and stored, and with tracing
 * on the receiver got the admission spans (the figures measure real export work).
 */
import { startService } from '../../test/support/service-process.js';
import { startOtlpReceiver } from '../../test/support/otlp-receiver.js';
import { onCleanup } from '../lib/cleanup.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import { assertLoopback } from '../lib/loopback.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { benchConfig, makeBaseDir, OPERATOR_KEY, runsTotal, serviceAvailable, SKIP_SERVICE_REASON } from '../lib/service.js';
import { processCpuMs } from '../lib/process-cpu.js';
import { mainThreadCpuMs } from '../lib/util.js';

const OFF = 'service (json file, tracing off)';
const ON = 'service (json file, tracing on)';
const GOAL = 0.8;
const CONNECTIONS = 50;

interface Mode {
  subject: string;
  env: (receiverUrl: string) => Record<string, string>;
}

const MODES: Mode[] = [
  { subject: OFF, env: () => ({}) },
  { subject: ON, env: (receiverUrl) => ({ OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl, OTEL_SERVICE_NAME: 'orchestrator-bench' }) },
];

interface Round {
  summary: LoadSummary;
  accepted: number;
  stored: number;
  /** The service's main-thread CPU per answered request of the measured load (µs); null without /proc. */
  cpuUsPerRequest: number | null;
  /** The same for the whole process, every thread (GC and I/O helpers included). */
  processCpuUsPerRequest: number | null;
}

async function measureOnce(ctx: ScenarioContext, mode: Mode, receiverUrl: string, round: number, durationSec: number): Promise<Round> {
  const base = makeBaseDir('orch-bench-tracing-');
  const proc = await startService({
    baseDir: base.dir,
    // Retention off: every 202 must still be there to be counted (as in the admission scenario).
    config: benchConfig('json', base.dir, { concurrency: ctx.settings.concurrency, runRetention: 10_000_000 }),
    env: { LOG_LEVEL: 'warn', ...mode.env(receiverUrl) },
  });
  const stop = onCleanup(`tracing service pid ${proc.child.pid}`, async () => {
    await proc.kill();
    await base.remove();
  });
  try {
    const url = proc.url.replace(/\/$/, '');
    assertLoopback(url);
    const tag = `trc-${process.pid}-${round}-${mode === MODES[0] ? 'off' : 'on'}`;
    let counter = 0;
    const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${tag}-${counter++}` } });
    const load = {
      url,
      connections: CONNECTIONS,
      method: 'POST' as const,
      path: '/api/tasks/trigger',
      headers: { authorization: `Bearer ${OPERATOR_KEY}`, 'content-type': 'application/json' },
      body: body(),
      setup: () => ({ body: body() }),
    };
    const warm = await runLoad({ ...load, title: `${mode.subject} warm-up`, durationSec: 1, maxMs: 6000 });
    ctx.log(`${mode.subject}: round ${round}, ${durationSec} s`);
    const cpuBefore = mainThreadCpuMs(proc.child.pid);
    const processBefore = processCpuMs(proc.child.pid);
    const summary = await runLoad({ ...load, title: mode.subject, durationSec, maxMs: durationSec * 1000 + 10_000 });
    const cpuAfter = mainThreadCpuMs(proc.child.pid);
    const processAfter = processCpuMs(proc.child.pid);
    const perRequest = (before: number | null, after: number | null) =>
      before !== null && after !== null && summary.completed > 0 ? ((after - before) * 1000) / summary.completed : null;
    const cpuUsPerRequest = perRequest(cpuBefore, cpuAfter);
    const processCpuUsPerRequest = perRequest(processBefore, processAfter);
    const accepted = (warm.statusCodes['202'] ?? 0) + (summary.statusCodes['202'] ?? 0);
    const stored = await runsTotal(url, { type: 'doc-sync' });
    return { summary, accepted, stored, cpuUsPerRequest, processCpuUsPerRequest };
  } finally {
    await stop();
  }
}

export const tracing: Scenario = {
  name: 'tracing',
  title: 'Admission with tracing off and on (OTLP/HTTP to a loopback receiver), alternating rounds',
  async run(ctx) {
    if (!serviceAvailable()) {
      for (const m of MODES) ctx.rows.skip(m.subject, 'admission', SKIP_SERVICE_REASON);
      return;
    }
    const receiver = await startOtlpReceiver();
    const closeReceiver = onCleanup('otlp receiver', () => receiver.close());
    try {
      const { rounds, durationSec } = ctx.settings.tracing;
      const results = new Map<string, Round[]>(MODES.map((m) => [m.subject, []]));
      for (let round = 1; round <= rounds; round++) {
        for (const mode of MODES) results.get(mode.subject)!.push(await measureOnce(ctx, mode, receiver.url, round, durationSec));
      }
      const best = (subject: string) => results.get(subject)!.reduce((a, b) => (b.summary.okRps > a.summary.okRps ? b : a));
      const off = best(OFF);
      const on = best(ON);
      ctx.details.rounds = Object.fromEntries([...results].map(([s, rs]) => [s, rs.map((r) => ({ ...r.summary, accepted202: r.accepted, storedRuns: r.stored }))]));
      ctx.details.spansReceived = receiver.spans.length;

      let checksOk = true;
      for (const [subject, rs] of results) {
        const odd = rs.reduce((n, r) => n + r.summary.non2xx + r.summary.errors, 0);
        checksOk = ctx.rows.check(subject, 'every request answered 202', odd === 0, `${odd} non-2xx answers or errors`) && checksOk;
        // A timed load ends with up to one request per connection in flight, which may be stored unanswered.
        const lost = rs.filter((r) => r.stored < r.accepted || r.stored > r.accepted + 2 * CONNECTIONS);
        checksOk = ctx.rows.check(subject, 'every 202 stored', lost.length === 0, rs.map((r) => `${r.accepted} answered 202, ${r.stored} stored`).join('; ')) && checksOk;
      }
      const admissionSpans = receiver.spans.filter((s) => s.name === 'task.admission').length;
      // The batch processor drops spans when its queue is full (by design): some, not all, must arrive.
      checksOk = ctx.rows.check(ON, 'admission spans exported', admissionSpans > 0, `${admissionSpans} admission spans received of ${results.get(ON)!.reduce((n, r) => n + r.accepted, 0)} admissions`) && checksOk;

      ctx.rows.compare({
        id: 'tracing/on-off',
        subject: ON,
        baseline: OFF,
        metric: 'admission req/s',
        unit: 'req/s',
        better: 'higher',
        rounds: results.get(ON)!.map((r, i) => ({ value: r.summary.okRps, baseline: results.get(OFF)![i]?.summary.okRps ?? null })),
      });
      const note = (r: Round) => `best of ${rounds} (${results.get(r === off ? OFF : ON)!.map((x) => Math.round(x.summary.okRps)).join(' / ')} req/s); p99 ${r.summary.latencyMs.p99} ms`;
      ctx.rows.add({ subject: OFF, metric: 'admission', unit: 'req/s', value: off.summary.okRps, better: 'higher', note: note(off) });
      const row = ctx.rows.add({
        subject: ON,
        metric: 'admission',
        unit: 'req/s',
        value: on.summary.okRps,
        better: 'higher',
        baseline: { subject: OFF, value: off.summary.okRps },
        note: `${note(on)}; goal >= ${GOAL}x tracing off${checksOk ? '' : '; checks failed: ratio not comparable'}`,
      });
      if (!checksOk) row.ratio = null;
      // CPU per request says what tracing costs the service itself, whatever else the host runs.
      const cpu = (r: Round) => r.cpuUsPerRequest;
      ctx.rows.add({ subject: OFF, metric: 'service CPU per admission', unit: 'µs', value: cpu(off), better: 'lower', note: 'main thread, measured load of the best round' });
      ctx.rows.add({
        subject: ON,
        metric: 'service CPU per admission',
        unit: 'µs',
        value: cpu(on),
        better: 'lower',
        baseline: { subject: OFF, value: cpu(off) },
        note: 'main thread (spans made and exported there), measured load of the best round',
      });
      // GC and I/O helper threads work for tracing too: the whole process shows it.
      ctx.rows.add({ subject: OFF, metric: 'service CPU per admission, all threads', unit: 'µs', value: off.processCpuUsPerRequest, better: 'lower', note: 'whole process, measured load of the best round' });
      ctx.rows.add({
        subject: ON,
        metric: 'service CPU per admission, all threads',
        unit: 'µs',
        value: on.processCpuUsPerRequest,
        better: 'lower',
        baseline: { subject: OFF, value: off.processCpuUsPerRequest },
        note: 'whole process (GC and I/O helper threads included), measured load of the best round',
      });
    } finally {
      await closeReceiver();
    }
  },
};
