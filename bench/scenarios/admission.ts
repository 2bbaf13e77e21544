/**
 * 1. Trigger admission over HTTP: POST /api/tasks/trigger with a unique idempotency key per
 * request from 50 concurrent connections (autocannon), for the JSON file store and the SQLite
 * store, against two ceilings: a bare Fastify route that does nothing (the no-op ceiling) and
 * the same route appending each record with a group-committed fdatasync (the durable ceiling).
 * Each 202 is a durable, idempotent admission; the doc-sync runs it admits drain in the
 * background meanwhile. Then an open loop at a fixed arrival rate, and from there a bounded rate
 * sweep for the saturation point (the highest arrival rate answered in full within a p99 bound).
 * The bench then checks its own work: the service must hold exactly as many runs as it answered
 * 202 (warm-up, open loop and every sweep step included), or the scenario fails.
 */
import { runLoad, type LoadSummary } from '../lib/load.js';
import { runOpenLoop, type OpenLoopOptions, type OpenLoopResult } from '../lib/open-loop.js';
import { describeSweep, sweepSaturation, type SweepResult } from '../lib/saturation.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  OPERATOR_KEY,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  STORES,
} from '../lib/service.js';
import { join } from 'node:path';
import { makeBaseDir, runsTotal, unfinishedRuns } from '../lib/service.js';
import { errorMessage, mainThreadCpuMs } from '../lib/util.js';
import { startBareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify';
const DURABLE_CEILING = 'bare fastify + fdatasync';
const DURABILITY: Record<string, string> = {
  [CEILING]: 'none (nothing stored)',
  [DURABLE_CEILING]: 'fdatasync before 202 (group commit)',
  json: 'fdatasync of the journal before 202 (group commit)',
  sql: 'SQLite WAL COMMIT then fdatasync of the WAL (group commit) before 202',
};

function describe(summary: LoadSummary): string {
  const parts = [`${summary.ok2xx} admitted in ${summary.durationSec.toFixed(1)} s`];
  const odd = Object.entries(summary.statusCodes).filter(([code]) => code !== '202');
  if (odd.length) parts.push(`other statuses ${odd.map(([c, n]) => `${c}x${n}`).join(',')}`);
  if (summary.errors) parts.push(`${summary.errors} errors`);
  if (summary.stoppedEarly) parts.push('stopped at time budget');
  return parts.join('; ');
}

/** The measured loads plus every 202 answered, warm-up included (each one must be stored). */
interface Measured {
  summary: LoadSummary;
  openLoop: OpenLoopResult;
  /** The saturation sweep from the open loop's rate; null when this target is not swept. */
  sweep: SweepResult | null;
  /** Runs not yet finished when the sweep began (service only: the earlier loads' runs still draining). */
  backlogAtSweep: number | null;
  accepted: number;
  /** Requests that may have been stored without their answer being seen. */
  unanswered: number;
  /** The server's main-thread CPU per answered request of the closed-loop load (µs); null without /proc. */
  cpuUsPerRequest: number | null;
}

async function measure(
  ctx: ScenarioContext,
  url: string,
  title: string,
  headers: Record<string, string>,
  options: { sweep: boolean; pid: number | undefined; backlog?: () => Promise<number> },
): Promise<Measured> {
  const s = ctx.settings.admission;
  const tag = `adm-${process.pid}-${Date.now().toString(36)}-${title.replace(/\W+/g, '')}`;
  let counter = 0;
  const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${tag}-${counter++}` } });
  const base = {
    url,
    connections: s.connections,
    method: 'POST' as const,
    path: '/api/tasks/trigger',
    headers,
    body: body(),
    setup: () => ({ body: body() }),
  };
  ctx.log(`${title}: warm-up ${s.warmupSec} s`);
  const warm = await runLoad({ ...base, title: `${title} warm-up`, durationSec: s.warmupSec, maxMs: s.warmupSec * 1000 + 5000 });
  const durationSec = Math.max(1, Math.min(s.durationSec, Math.floor(ctx.remainingMs() / 1000) - 3));
  ctx.log(`${title}: ${durationSec} s at ${s.connections} connections`);
  const cpuBefore = mainThreadCpuMs(options.pid);
  const summary = await runLoad({ ...base, title, durationSec, maxMs: durationSec * 1000 + 10_000 });
  const cpuAfter = mainThreadCpuMs(options.pid);
  const cpuUsPerRequest = cpuBefore !== null && cpuAfter !== null && summary.completed > 0 ? ((cpuAfter - cpuBefore) * 1000) / summary.completed : null;
  ctx.log(`${title}: open loop, ${s.openLoopRate} arrivals/s for ${s.openLoopSec} s`);
  const open: Omit<OpenLoopOptions, 'ratePerSec' | 'durationSec'> = { url, path: '/api/tasks/trigger', method: 'POST', headers, body };
  const openLoop = await runOpenLoop({ ...open, ratePerSec: s.openLoopRate, durationSec: s.openLoopSec });
  const sat = s.saturation;
  const backlogAtSweep = options.sweep && options.backlog ? await options.backlog() : null;
  const result = options.sweep
    ? await sweepSaturation({
        first: openLoop,
        factor: sat.factor,
        stepSec: sat.stepSec,
        maxSteps: sat.maxSteps,
        maxMs: Math.min(sat.maxSec * 1000, ctx.remainingMs() - 2000),
        p99BoundMs: sat.p99BoundMs,
        drainMs: sat.drainMs,
        step: (ratePerSec, durationSec, drainMs) => {
          ctx.log(`${title}: saturation step, ${ratePerSec} arrivals/s for ${durationSec} s`);
          return runOpenLoop({ ...open, ratePerSec, durationSec, drainMs });
        },
      })
    : null;
  // The fixed-rate open loop is the sweep's first step; without a sweep it is the only one.
  const openLoops = result ? result.steps : [openLoop];
  return {
    summary,
    openLoop,
    sweep: result,
    backlogAtSweep,
    accepted: (warm.statusCodes['202'] ?? 0) + (summary.statusCodes['202'] ?? 0) + openLoops.reduce((n, r) => n + (r.statusCodes['202'] ?? 0), 0),
    // A timed load stops with up to one request per connection in flight (warm-up and measured
    // load); an open-loop request that errored or never answered (a saturated sweep step leaves
    // some) may be stored as well.
    unanswered: 2 * s.connections + openLoops.reduce((n, r) => n + r.errors + r.timedOut, 0),
    cpuUsPerRequest,
  };
}

function openLoopNote(r: OpenLoopResult): string {
  const parts = [`${r.ratePerSec}/s open loop, ${r.sent} sent, ${r.ok2xx} 2xx`];
  if (r.errors) parts.push(`${r.errors} errors`);
  if (r.timedOut) parts.push(`${r.timedOut} unanswered: saturated`);
  return parts.join(', ');
}

async function measureCeiling(ctx: ScenarioContext, title: string, sweep: boolean, durableFile?: string): Promise<Measured> {
  const bare = await startBareFastify(durableFile ? { durableFile } : {});
  try {
    return await measure(ctx, bare.url, title, {}, { sweep, pid: bare.pid });
  } finally {
    await bare.stop();
  }
}

function addOpenLoopRows(rows: ScenarioContext['rows'], subject: string, r: OpenLoopResult, base: OpenLoopResult | null): void {
  for (const [metric, key] of [
    ['open-loop p50', 'p50'],
    ['open-loop p99', 'p99'],
    ['open-loop p999', 'p999'],
  ] as const) {
    rows.add({
      subject,
      metric,
      unit: 'ms',
      value: r.latencyMs[key],
      better: 'lower',
      baseline: base ? { subject: DURABLE_CEILING, value: base.latencyMs[key] } : undefined,
      note: key === 'p50' ? openLoopNote(r) : undefined,
    });
  }
}

function addSaturationRow(ctx: ScenarioContext, subject: string, run: Measured, durable: Measured | null): void {
  if (!run.sweep) return;
  const bound = ctx.settings.admission.saturation.p99BoundMs;
  const base = durable?.sweep ? { subject: DURABLE_CEILING, value: durable.sweep.saturationPerSec } : undefined;
  const none = run.sweep.saturationPerSec === null ? 'no step passed; ' : '';
  const backlog =
    run.backlogAtSweep === null ? '' : `; ${run.backlogAtSweep} admitted runs still unfinished when the sweep began (they drain meanwhile)`;
  ctx.rows.add({
    subject,
    metric: 'saturation point',
    unit: 'arrivals/s',
    value: run.sweep.saturationPerSec,
    better: 'higher',
    baseline: base,
    note: none + describeSweep(run.sweep, bound) + backlog,
  });
}

/**
 * What one answered request cost the server's main (JavaScript) thread during the closed-loop
 * load; the thread pool's fdatasyncs are left out on both sides. The service's figure includes
 * the admitted runs draining meanwhile.
 */
function addCpuRow(rows: ScenarioContext['rows'], subject: string, run: Measured, durable: Measured | null): void {
  if (run.cpuUsPerRequest === null) return;
  const value = Math.round(run.cpuUsPerRequest * 10) / 10;
  const base = durable?.cpuUsPerRequest != null ? { subject: DURABLE_CEILING, value: Math.round(durable.cpuUsPerRequest * 10) / 10 } : undefined;
  const note = durable ? 'main thread, user + system, per 202; the admitted runs draining meanwhile included' : 'main thread, user + system';
  rows.add({ subject, metric: 'CPU per request', unit: 'µs', value, better: 'lower', baseline: base, note });
}

export const admission: Scenario = {
  name: 'admission',
  title: 'Trigger admission over HTTP (unique keys, 50 concurrent clients)',
  async run(ctx) {
    const { rows, details } = ctx;
    const ceilingRun = await measureCeiling(ctx, CEILING, ctx.settings.admission.saturation.noopCeiling);
    const scratch = makeBaseDir('orch-bench-durable-');
    let durableRun: Measured;
    try {
      durableRun = await measureCeiling(ctx, DURABLE_CEILING, true, join(scratch.dir, 'journal'));
    } finally {
      await scratch.remove();
    }
    const ceiling = ceilingRun.summary;
    const durable = durableRun.summary;
    for (const [subject, run, note] of [
      [CEILING, ceilingRun, 'no-op ceiling'],
      [DURABLE_CEILING, durableRun, 'durable ceiling'],
    ] as const) {
      const summary = run.summary;
      details[subject] = { ...summary, openLoop: run.openLoop, saturationSweep: run.sweep };
      rows.add({ subject, metric: 'req/s', unit: '', value: summary.okRps, better: 'higher', durability: DURABILITY[subject], note });
      rows.add({ subject, metric: 'p50', unit: 'ms', value: summary.latencyMs.p50, better: 'lower' });
      rows.add({ subject, metric: 'p99', unit: 'ms', value: summary.latencyMs.p99, better: 'lower' });
      addOpenLoopRows(rows, subject, run.openLoop, null);
      addSaturationRow(ctx, subject, run, subject === DURABLE_CEILING ? null : durableRun);
      addCpuRow(rows, subject, run, null);
    }

    for (const store of STORES) {
      const subject = storeLabel(store);
      if (!serviceAvailable()) {
        rows.skip(subject, 'req/s, p50, p99', SKIP_SERVICE_REASON);
        continue;
      }
      if (ctx.remainingMs() < 8000) {
        rows.skip(subject, 'req/s, p50, p99', 'time budget spent');
        continue;
      }
      try {
        // Retention far above the load, so every admitted run is still there to be counted.
        const service = await launchService({ store, config: { concurrency: ctx.settings.concurrency, runRetention: 10_000_000 } });
        let measured: Measured;
        let stored: number;
        try {
          measured = await measure(ctx, service.url, subject, { authorization: `Bearer ${OPERATOR_KEY}` }, {
            sweep: true,
            pid: service.pid,
            backlog: () => unfinishedRuns(service.url, 'doc-sync'),
          });
          stored = await runsTotal(service.url, { type: 'doc-sync' });
        } finally {
          await service.stop();
        }
        const summary = measured.summary;
        details[subject] = { ...summary, openLoop: measured.openLoop, saturationSweep: measured.sweep, backlogAtSweep: measured.backlogAtSweep, accepted202: measured.accepted, storedRuns: stored };
        for (const base of [
          { subject: CEILING, load: ceiling },
          { subject: DURABLE_CEILING, load: durable },
        ]) {
          const vs = `vs ${base.subject === CEILING ? 'no-op' : 'durable'}`;
          rows.add({
            subject,
            metric: `req/s ${vs}`,
            unit: '',
            value: summary.okRps,
            better: 'higher',
            baseline: { subject: base.subject, value: base.load.okRps },
            durability: base.subject === CEILING ? DURABILITY[store] : undefined,
            note: base.subject === CEILING ? describe(summary) : undefined,
          });
          rows.add({ subject, metric: `p99 ${vs}`, unit: 'ms', value: summary.latencyMs.p99, better: 'lower', baseline: { subject: base.subject, value: base.load.latencyMs.p99 } });
        }
        rows.add({ subject, metric: 'p50', unit: 'ms', value: summary.latencyMs.p50, better: 'lower', baseline: { subject: CEILING, value: ceiling.latencyMs.p50 } });
        const fiveXx = Object.entries(summary.statusCodes).filter(([code]) => code.startsWith('5')).reduce((n, [, c]) => n + c, 0);
        rows.check(subject, 'no 5xx, no socket errors', fiveXx === 0 && summary.errors === 0, `${fiveXx} 5xx, ${summary.errors} errors`);
        addOpenLoopRows(rows, subject, measured.openLoop, durableRun.openLoop);
        addSaturationRow(ctx, subject, measured, durableRun);
        addCpuRow(rows, subject, measured, durableRun);
        // Requests in flight when a load stopped may be stored without their answer being
        // counted. Fewer stored than 202s is a loss.
        const inFlightAtStop = measured.unanswered;
        const extra = stored - measured.accepted;
        rows.check(
          subject,
          'stored runs = 202s',
          extra >= 0 && extra <= inFlightAtStop,
          `${measured.accepted} answered 202, ${stored} runs stored` +
            (extra > 0 ? ` (${extra} in flight when the load stopped, at most ${inFlightAtStop})` : ''),
        );
      } catch (err) {
        rows.add({ subject, metric: 'req/s, p50, p99', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
