/**
 * 1. Trigger admission over HTTP: POST /api/tasks/trigger with a unique idempotency key per
 * request from 50 concurrent connections (autocannon), for the JSON file store and the SQLite
 * store, against two ceilings: a bare Fastify route that does nothing (the no-op ceiling) and
 * the same route appending each record with a group-committed fdatasync (the durable ceiling).
 * The closed-loop load runs in rounds, the ceilings and the service taking turns (A/B/A/B), so a
 * host that slows mid-run favours no side; each subject's best turn is its row, and the goals are
 * judged on the median of the rounds' ratios (RowSink.compare). Each 202 is a
 * durable, idempotent admission; the doc-sync runs it admits drain in the background meanwhile.
 * Then an open loop at a fixed arrival rate, and from there a bounded rate sweep for the
 * saturation point (the highest arrival rate answered in full within a p99 bound).
 *
 * The bench checks its own work: the keys each durable subject stored are compared, as sets,
 * with the keys it acknowledged (warm-up, every turn, open loop and sweep included); a ceiling
 * that failed or dropped requests is a failed row, not a lower baseline, and every ratio against
 * it prints as failed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchFault, CEILING_500_EVERY, startAckDroppingProxy, type AckDroppingProxy } from '../lib/fault.js';
import { acknowledgedKey, compareKeys } from '../lib/key-sets.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import { runOpenLoop, type OpenLoopOptions, type OpenLoopResult } from '../lib/open-loop.js';
import { benchCpuMs, cpuMeter, describeCpu, processCpuMs } from '../lib/process-cpu.js';
import { describeSweep, sweepSaturation, type SweepResult } from '../lib/saturation.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  makeBaseDir,
  OPERATOR_KEY,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storedRunIds,
  storeLabel,
  STORES,
  unfinishedRuns,
  type BenchService,
} from '../lib/service.js';
import { errorMessage, mainThreadCpuMs } from '../lib/util.js';
import { startBareFastify, type BareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify';
const DURABLE_CEILING = 'bare fastify + fdatasync';
const DURABILITY: Record<string, string> = {
  [CEILING]: 'none (nothing stored)',
  [DURABLE_CEILING]: 'fdatasync before 202 (group commit)',
  json: 'fdatasync of the journal before 202 (group commit)',
  sql: 'SQLite WAL COMMIT then fdatasync of the WAL (group commit) before 202',
};

/** One subject under load: where requests go, what it acknowledged, its best closed-loop turn. */
interface Target {
  subject: string;
  url: string;
  /** The process serving it (CPU figures). */
  pid: number | undefined;
  headers: Record<string, string>;
  tag: string;
  counter: number;
  acknowledged: Set<string>;
  /** Requests that may have been stored without their answer being seen. */
  unanswered: number;
  /** Non-2xx answers and socket errors over every load (open-loop timeouts of a saturated step excepted). */
  non2xx: number;
  errors: number;
  statusCodes: Record<string, number>;
  turns: number;
  /** Every measured turn's req/s and p99, in order (the verdicts pair them round by round). */
  turnRps: number[];
  turnP99: number[];
  best: { summary: LoadSummary; cpuSec: Record<string, number | null>; cpuUsPerRequest: number | null } | null;
  openLoop: OpenLoopResult | null;
  sweep: SweepResult | null;
  /** Runs not yet finished when the sweep began (service only: the earlier loads' runs still draining). */
  backlogAtSweep: number | null;
}

function target(subject: string, url: string, pid: number | undefined, headers: Record<string, string>): Target {
  return {
    subject,
    url,
    pid,
    headers,
    tag: `adm-${process.pid}-${Date.now().toString(36)}-${subject.replace(/\W+/g, '')}`,
    counter: 0,
    acknowledged: new Set(),
    unanswered: 0,
    non2xx: 0,
    errors: 0,
    statusCodes: {},
    turns: 0,
    turnRps: [],
    turnP99: [],
    best: null,
    openLoop: null,
    sweep: null,
    backlogAtSweep: null,
  };
}

const body = (t: Target) => () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `${t.tag}-${t.counter++}` } });

function record(t: Target, status: number, text: string): void {
  const key = acknowledgedKey(status, text);
  if (key) t.acknowledged.add(key);
}

function tally(t: Target, codes: Record<string, number>, errors: number): void {
  for (const [code, n] of Object.entries(codes)) {
    t.statusCodes[code] = (t.statusCodes[code] ?? 0) + n;
    if (!code.startsWith('2')) t.non2xx += n;
  }
  t.errors += errors;
}

/** One closed-loop load of `durationSec` (a warm-up or a measured turn). */
async function closedLoad(ctx: ScenarioContext, t: Target, title: string, durationSec: number): Promise<LoadSummary> {
  const next = body(t);
  const summary = await runLoad({
    title,
    url: t.url,
    connections: ctx.settings.admission.connections,
    method: 'POST',
    path: '/api/tasks/trigger',
    headers: t.headers,
    body: next(),
    setup: () => ({ body: next() }),
    durationSec,
    maxMs: durationSec * 1000 + 10_000,
    onResponse: (status, text) => record(t, status, text),
  });
  // A timed load stops with up to one request per connection in flight.
  t.unanswered += ctx.settings.admission.connections;
  tally(t, summary.statusCodes, summary.errors);
  return summary;
}

async function turn(ctx: ScenarioContext, t: Target, durationSec: number): Promise<void> {
  const main = mainThreadCpuMs(t.pid);
  const meter = cpuMeter({ [t.subject.startsWith('service') ? 'service' : 'ceiling']: () => processCpuMs(t.pid), bench: benchCpuMs });
  const summary = await closedLoad(ctx, t, `${t.subject} turn ${t.turns + 1}`, durationSec);
  const cpuSec = meter.stop();
  const mainAfter = mainThreadCpuMs(t.pid);
  const cpuUsPerRequest = main !== null && mainAfter !== null && summary.completed > 0 ? ((mainAfter - main) * 1000) / summary.completed : null;
  t.turns++;
  t.turnRps.push(summary.okRps);
  t.turnP99.push(summary.latencyMs.p99);
  if (!t.best || summary.okRps > t.best.summary.okRps) t.best = { summary, cpuSec, cpuUsPerRequest };
}

/** Warm-up each, then `rounds` turns of each target in order: A/B/C/A/B/C. Returns the rounds that ran. */
async function alternate(ctx: ScenarioContext, targets: Target[]): Promise<number> {
  const s = ctx.settings.admission;
  for (const t of targets) {
    ctx.log(`${t.subject}: warm-up ${s.warmupSec} s`);
    await closedLoad(ctx, t, `${t.subject} warm-up`, s.warmupSec);
  }
  const perTurn = Math.max(1, s.durationSec / s.rounds);
  let ran = 0;
  for (let round = 0; round < s.rounds; round++) {
    const left = Math.floor(ctx.remainingMs() / 1000) - 3;
    if (round > 0 && left < perTurn * targets.length + 5) break;
    ctx.log(`round ${round + 1}/${s.rounds}: ${targets.map((t) => t.subject).join(', ')}, ${perTurn} s each`);
    for (const t of targets) await turn(ctx, t, perTurn);
    ran++;
  }
  return ran;
}

/**
 * The service's rounds beside the ceilings' rounds of the same alternation (the last `n` turns of
 * each): its ratio to each ceiling, and its p99 against the goal's bound, for the verdicts.
 */
function compareRounds(ctx: ScenarioContext, t: Target, ceiling: Target, durable: Target, n: number): void {
  const last = (xs: number[]) => xs.slice(-n);
  const store = t.subject.includes('sqlite') ? 'sqlite' : 'json';
  const mine = last(t.turnRps);
  const orders = [{ upper: ceiling.subject, lower: durable.subject, upperRounds: last(ceiling.turnRps), lowerRounds: last(durable.turnRps) }];
  for (const [base, name] of [
    [ceiling, 'no-op'],
    [durable, 'durable'],
  ] as const) {
    const theirs = last(base.turnRps);
    ctx.rows.compare({ id: `admission/${store}/${name}`, subject: t.subject, baseline: base.subject, metric: 'req/s', unit: '', better: 'higher', rounds: mine.map((value, i) => ({ value, baseline: theirs[i] ?? null })), orders });
  }
  ctx.rows.compare({ id: `admission/${store}/p99`, subject: t.subject, baseline: '', metric: 'p99', unit: 'ms', better: 'lower', rounds: last(t.turnP99).map((value) => ({ value, baseline: 1 })) });
}

/** The open loop at the fixed rate, then (when `sweep`) the saturation sweep from it. */
async function openPhase(ctx: ScenarioContext, t: Target, sweep: boolean, backlog?: () => Promise<number>): Promise<void> {
  const s = ctx.settings.admission;
  const open: Omit<OpenLoopOptions, 'ratePerSec' | 'durationSec'> = {
    url: t.url,
    path: '/api/tasks/trigger',
    method: 'POST',
    headers: t.headers,
    body: body(t),
    onAnswer: (status, text) => record(t, status, text),
  };
  ctx.log(`${t.subject}: open loop, ${s.openLoopRate} arrivals/s for ${s.openLoopSec} s`);
  t.openLoop = await runOpenLoop({ ...open, ratePerSec: s.openLoopRate, durationSec: s.openLoopSec });
  const sat = s.saturation;
  t.backlogAtSweep = sweep && backlog ? await backlog() : null;
  t.sweep = sweep
    ? await sweepSaturation({
        first: t.openLoop,
        factor: sat.factor,
        stepSec: sat.stepSec,
        maxSteps: sat.maxSteps,
        maxMs: Math.min(sat.maxSec * 1000, ctx.remainingMs() - 2000),
        p99BoundMs: sat.p99BoundMs,
        drainMs: sat.drainMs,
        step: (ratePerSec, durationSec, drainMs) => {
          ctx.log(`${t.subject}: saturation step, ${ratePerSec} arrivals/s for ${durationSec} s`);
          return runOpenLoop({ ...open, ratePerSec, durationSec, drainMs });
        },
      })
    : null;
  // The fixed-rate open loop is the sweep's first step; without a sweep it is the only one.
  for (const r of t.sweep ? t.sweep.steps : [t.openLoop]) {
    tally(t, r.statusCodes, 0);
    // An arrival that errored or never answered (a saturated step leaves some) may be stored.
    t.unanswered += r.errors + r.timedOut;
  }
}

const roundsNote = (rps: number[]) => `${rps.map((r) => Math.round(r)).join(' / ')} req/s`;

function describe(summary: LoadSummary): string {
  const parts = [`${summary.ok2xx} admitted in ${summary.durationSec.toFixed(1)} s`];
  const odd = Object.entries(summary.statusCodes).filter(([code]) => code !== '202');
  if (odd.length) parts.push(`other statuses ${odd.map(([c, n]) => `${c}x${n}`).join(',')}`);
  if (summary.errors) parts.push(`${summary.errors} errors`);
  if (summary.stoppedEarly) parts.push('stopped at time budget');
  return parts.join('; ');
}

function openLoopNote(r: OpenLoopResult): string {
  const parts = [`${r.ratePerSec}/s open loop, ${r.sent} sent, ${r.ok2xx} 2xx`];
  if (r.errors) parts.push(`${r.errors} errors`);
  if (r.timedOut) parts.push(`${r.timedOut} unanswered: saturated`);
  return parts.join(', ');
}

function addOpenLoopRows(rows: ScenarioContext['rows'], subject: string, r: OpenLoopResult | null, base: OpenLoopResult | null): void {
  if (!r) return;
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

function addSaturationRow(ctx: ScenarioContext, t: Target, durable: Target | null): void {
  if (!t.sweep) return;
  const bound = ctx.settings.admission.saturation.p99BoundMs;
  const base = durable?.sweep ? { subject: DURABLE_CEILING, value: durable.sweep.saturationPerSec } : undefined;
  const none = t.sweep.saturationPerSec === null ? 'no step passed; ' : '';
  const backlog = t.backlogAtSweep === null ? '' : `; ${t.backlogAtSweep} admitted runs still unfinished when the sweep began (they drain meanwhile)`;
  ctx.rows.add({ subject: t.subject, metric: 'saturation point', unit: 'arrivals/s', value: t.sweep.saturationPerSec, better: 'higher', baseline: base, note: none + describeSweep(t.sweep, bound) + backlog });
}

/**
 * What one answered request cost the server's main (JavaScript) thread during its best
 * closed-loop turn; the thread pool's fdatasyncs are left out on both sides. The service's
 * figure includes the admitted runs draining meanwhile.
 */
function addCpuRow(rows: ScenarioContext['rows'], t: Target, durable: Target | null): void {
  const own = t.best?.cpuUsPerRequest;
  if (own === null || own === undefined) return;
  const value = Math.round(own * 10) / 10;
  const theirs = durable?.best?.cpuUsPerRequest;
  const base = theirs !== null && theirs !== undefined ? { subject: DURABLE_CEILING, value: Math.round(theirs * 10) / 10 } : undefined;
  const note = durable ? 'main thread, user + system, per 202; the admitted runs draining meanwhile included' : 'main thread, user + system';
  rows.add({ subject: t.subject, metric: 'CPU per request', unit: 'µs', value, better: 'lower', baseline: base, note });
}

/** The no-non-2xx check every subject passes: a subject that failed requests measured something else. */
function answersCheck(rows: ScenarioContext['rows'], t: Target): void {
  const odd = Object.entries(t.statusCodes).filter(([code]) => !code.startsWith('2'));
  rows.check(
    t.subject,
    'every request answered 2xx',
    t.non2xx === 0 && t.errors === 0,
    `${t.non2xx} non-2xx${odd.length ? ` (${odd.map(([c, n]) => `${c}x${n}`).join(', ')})` : ''}, ${t.errors} socket errors`,
  );
}

function keysCheck(rows: ScenarioContext['rows'], t: Target, stored: Set<string>): void {
  const keys = compareKeys(t.acknowledged, stored, t.unanswered);
  rows.check(t.subject, 'stored keys = acknowledged keys', keys.ok, keys.detail);
}

/** The keys the durable ceiling's journal holds (one JSON record a line). */
function journalKeys(file: string): Set<string> {
  const keys = new Set<string>();
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (!line) continue;
    const runId = (JSON.parse(line) as { runId?: unknown }).runId;
    if (typeof runId === 'string') keys.add(runId);
  }
  return keys;
}

export const admission: Scenario = {
  name: 'admission',
  title: 'Trigger admission over HTTP (unique keys, 50 concurrent clients)',
  async run(ctx) {
    const { rows, details } = ctx;
    const fault = benchFault();
    const fail500 = fault === 'ceiling-500' ? { fail500Every: CEILING_500_EVERY } : {};
    const scratch = makeBaseDir('orch-bench-durable-');
    const journal = join(scratch.dir, 'journal');
    let noop: BareFastify | null = null;
    let durableBare: BareFastify | null = null;
    try {
      noop = await startBareFastify(fail500);
      durableBare = await startBareFastify({ durableFile: journal, ...fail500 });
      const ceiling = target(CEILING, noop.url, noop.pid, {});
      const durable = target(DURABLE_CEILING, durableBare.url, durableBare.pid, {});
      // The ceilings' open loops and sweeps first: the service rows compare with them.
      await openPhase(ctx, ceiling, ctx.settings.admission.saturation.noopCeiling);
      await openPhase(ctx, durable, true);

      const services: Target[] = [];
      let alternated = false;
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
        let service: BenchService | null = null;
        let proxy: AckDroppingProxy | null = null;
        try {
          // Retention far above the load, so every admitted run is still there to be compared.
          service = await launchService({ store, config: { concurrency: ctx.settings.concurrency, runRetention: 10_000_000 } });
          if (fault === 'drop-one-ack') proxy = await startAckDroppingProxy(service.url);
          const t = target(subject, proxy?.url ?? service.url, service.pid, { authorization: `Bearer ${OPERATOR_KEY}` });
          compareRounds(ctx, t, ceiling, durable, await alternate(ctx, [ceiling, durable, t]));
          alternated = true;
          const url = service.url;
          await openPhase(ctx, t, true, () => unfinishedRuns(url, 'doc-sync'));
          const stored = await storedRunIds(service.url, 'doc-sync');
          details[subject] = { best: t.best, openLoop: t.openLoop, saturationSweep: t.sweep, backlogAtSweep: t.backlogAtSweep, acknowledged: t.acknowledged.size, storedRuns: stored.size, droppedByFault: proxy?.dropped() ?? null };
          services.push(t);
          // Checks right away (they mark the subject), rows once the ceilings' best turns are known.
          answersCheck(rows, t);
          keysCheck(rows, t, stored);
        } catch (err) {
          rows.add({ subject, metric: 'req/s, p50, p99', unit: '', value: null, note: `error: ${errorMessage(err)}` });
          details[`${subject} error`] = String(err);
        } finally {
          await proxy?.stop();
          await service?.stop();
        }
      }
      if (!alternated) await alternate(ctx, [ceiling, durable]);

      for (const [t, note] of [
        [ceiling, 'no-op ceiling'],
        [durable, 'durable ceiling'],
      ] as const) {
        details[t.subject] = { best: t.best, openLoop: t.openLoop, saturationSweep: t.sweep, acknowledged: t.acknowledged.size };
        const b = t.best!.summary;
        rows.add({ subject: t.subject, metric: 'req/s', unit: '', value: b.okRps, better: 'higher', durability: DURABILITY[t.subject], note: `${note}; best of ${t.turns} turns (${roundsNote(t.turnRps)}); ${describeCpu(t.best!.cpuSec, b.durationSec)}` });
        rows.add({ subject: t.subject, metric: 'p50', unit: 'ms', value: b.latencyMs.p50, better: 'lower' });
        rows.add({ subject: t.subject, metric: 'p99', unit: 'ms', value: b.latencyMs.p99, better: 'lower' });
        addOpenLoopRows(rows, t.subject, t.openLoop, null);
        addSaturationRow(ctx, t, t === durable ? null : durable);
        addCpuRow(rows, t, null);
        answersCheck(rows, t);
      }
      keysCheck(rows, durable, journalKeys(journal));

      for (const t of services) {
        const summary = t.best!.summary;
        for (const base of [ceiling, durable]) {
          const vs = `vs ${base === ceiling ? 'no-op' : 'durable'}`;
          rows.add({
            subject: t.subject,
            metric: `req/s ${vs}`,
            unit: '',
            value: summary.okRps,
            better: 'higher',
            baseline: { subject: base.subject, value: base.best!.summary.okRps },
            durability: base === ceiling ? DURABILITY[t.subject.includes('sqlite') ? 'sql' : 'json'] : undefined,
            note: base === ceiling ? `${describe(summary)}; best of ${t.turns} turns (${roundsNote(t.turnRps)}); ${describeCpu(t.best!.cpuSec, summary.durationSec)}` : undefined,
          });
          rows.add({ subject: t.subject, metric: `p99 ${vs}`, unit: 'ms', value: summary.latencyMs.p99, better: 'lower', baseline: { subject: base.subject, value: base.best!.summary.latencyMs.p99 } });
        }
        rows.add({ subject: t.subject, metric: 'p50', unit: 'ms', value: summary.latencyMs.p50, better: 'lower', baseline: { subject: CEILING, value: ceiling.best!.summary.latencyMs.p50 } });
        addOpenLoopRows(rows, t.subject, t.openLoop, durable.openLoop);
        addSaturationRow(ctx, t, durable);
        addCpuRow(rows, t, durable);
      }
    } finally {
      await durableBare?.stop();
      await noop?.stop();
      await scratch.remove();
    }
  },
};
