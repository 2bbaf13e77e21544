/**
 * 6. Start-up time: from spawning the process to the first 200 from GET /health, polled every
 * 5 ms on a port chosen up front. The service starts from an empty state (both stores); the
 * baseline is the bare Fastify peer started the same way (plain node, same polling).
 *
 * Restart with a large state: a service records one doc-sync run, stops, gets `largeState`
 * copies of it written through its own store module, and starts again on that state; the row is
 * the time from the new process's spawn to its first healthy /health, and the bench checks that
 * every written run is there after the restart.
 *
 * Each start's readiness line carries when its phases ended (src/startup-phases.ts); the rows
 * split the median start into module loading, store open, composition (routes and server),
 * recovery and the first listen, with the CPU the process used until it listened.
 */
import { join } from 'node:path';
import type { Scenario } from '../lib/scenario.js';
import {
  getRun,
  launchService,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  STORES,
  TERMINAL,
  trigger,
  waitHealthy,
  type StoreKind,
} from '../lib/service.js';
import { measureWritePauses, storeModuleAvailable, writeTerminalRuns, type WritePauses } from '../lib/store-seed.js';
import type { ScenarioContext } from '../lib/scenario.js';
import type { StartupPhases } from '../../src/startup-phases.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import { summarize } from '../lib/stats.js';
import { errorMessage, freePort, sleep, waitFor } from '../lib/util.js';
import { assertLoopback } from '../lib/loopback.js';

const BARE = 'bare fastify';

/** When each phase ended, in ms since the service's process started (its readiness line). */
type PhaseEnds = StartupPhases;

/** Each phase's own duration, in the order they run. */
const PHASES: ReadonlyArray<{ metric: string; of: (p: PhaseEnds) => number }> = [
  { metric: 'phase: module loading', of: (p) => p.modulesLoadedMs },
  { metric: 'phase: store open', of: (p) => p.storeOpenMs - p.modulesLoadedMs },
  { metric: 'phase: composition', of: (p) => p.composedMs - p.storeOpenMs },
  { metric: 'phase: recovery', of: (p) => p.recoveredMs - p.composedMs },
  { metric: 'phase: first listen', of: (p) => p.listeningMs - p.recoveredMs },
  { metric: 'CPU until listening', of: (p) => p.cpuMs },
];

function phaseEnds(output: readonly string[]): PhaseEnds | null {
  const line = output.find((entry) => entry.includes('service listening'));
  if (line === undefined) return null;
  try {
    return (JSON.parse(line) as { startupPhases?: PhaseEnds }).startupPhases ?? null;
  } catch {
    return null;
  }
}

/** One row per phase: the median of each phase's duration over the starts measured. */
function addPhaseRows(ctx: ScenarioContext, subject: string, starts: readonly PhaseEnds[], label: string): void {
  if (starts.length === 0) return;
  for (const { metric, of } of PHASES) {
    const values = starts.map(of);
    ctx.rows.add({ subject, metric: `${metric}${label}`, unit: 'ms', value: summarize(values).p50, better: 'lower', note: `median of ${values.length} start${values.length === 1 ? '' : 's'}` });
  }
}

/** Polls http://127.0.0.1:<port>/health until a 200; resolves with performance.now() of it. */
async function firstHealthy(port: number, timeoutMs: number, stop: { done: boolean }): Promise<number | null> {
  const url = assertLoopback(`http://127.0.0.1:${port}/health`);
  const deadline = performance.now() + timeoutMs;
  while (!stop.done && performance.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await res.arrayBuffer();
      if (res.status === 200) return performance.now();
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  return null;
}

async function timeBare(): Promise<number> {
  const port = await freePort();
  const stop = { done: false };
  const t0 = performance.now();
  const peer = spawnPeer(join(PEERS_DIR, 'bare-fastify.ts'), { port });
  try {
    const t1 = await firstHealthy(port, 20_000, stop);
    if (t1 === null) throw new Error('bare fastify never answered /health');
    return t1 - t0;
  } finally {
    stop.done = true;
    await peer.kill();
  }
}

async function timeService(store: StoreKind, phases: PhaseEnds[]): Promise<number> {
  const port = await freePort();
  const stop = { done: false };
  const t0 = performance.now();
  const polling = firstHealthy(port, 60_000, stop);
  let service: Awaited<ReturnType<typeof launchService>> | null = null;
  try {
    service = await launchService({ store, config: { port } });
    const t1 = await polling;
    if (t1 === null) throw new Error('service never answered /health with 200');
    const ends = phaseEnds(service.proc.output);
    if (ends !== null) phases.push(ends);
    return t1 - t0;
  } finally {
    stop.done = true;
    await polling.catch(() => null);
    if (service) await service.stop();
  }
}

/** Restart time on `count` stored runs; checks they are all there afterwards. */
async function restartLarge(ctx: ScenarioContext, store: StoreKind, count: number): Promise<void> {
  const subject = storeLabel(store);
  const metric = `restart @ ${count.toLocaleString('en-US')} runs`;
  let service = await launchService({ store, config: { runRetention: count * 2 } });
  try {
    const key = `restart-template-${process.pid}`;
    const res = await trigger(service.url, 'doc-sync', { idempotencyKey: key });
    if (res.code !== 202) throw new Error(`template trigger answered ${res.code}`);
    const done = await waitFor(async () => {
      const run = await getRun(service.url, key);
      return run && TERMINAL.has(run.status) ? run : null;
    }, { timeoutMs: 20_000, intervalMs: 20 });
    if (done?.status !== 'success') throw new Error('the template run did not succeed');
    let spawnedAt = 0;
    let seedMs = 0;
    service = await service.restart(async () => {
      seedMs = (await writeTerminalRuns(store, service.stateDir, `restart-${process.pid}`, count, count + 1)).ms;
      spawnedAt = performance.now();
    });
    if (!(await waitHealthy(service.url, 60_000))) throw new Error('no healthy /health after the restart');
    const restartMs = performance.now() - spawnedAt;
    const stored = await runsTotal(service.url, { type: 'doc-sync' });
    ctx.details[`${subject} ${metric}`] = { restartMs, seedMs, stored };
    ctx.rows.add({ subject, metric, unit: 'ms', value: restartMs, better: 'lower', note: `spawn to first healthy /health; ${count} runs written in ${Math.round(seedMs)} ms` });
    ctx.rows.check(subject, `every run there after the restart`, stored === count + 1, `${stored} of ${count + 1} runs listed`);
    const ends = phaseEnds(service.proc.output);
    if (ends !== null) addPhaseRows(ctx, subject, [ends], ` @ ${count.toLocaleString('en-US')} runs`);
    if (store !== 'json') return;
    // The compaction pause on that state: writes while the journal threshold forces compactions.
    let pauses: WritePauses | null = null;
    service = await service.restart(async () => {
      pauses = await measureWritePauses(store, service.stateDir, { writes: 3000, concurrency: 16, compactAfterEntries: 1000 });
    });
    const p = pauses as WritePauses | null;
    if (p === null) return;
    ctx.details[`${subject} compaction pause`] = p;
    ctx.rows.add({
      subject,
      metric: `compaction pause @ ${count.toLocaleString('en-US')} runs`,
      unit: 'ms',
      value: p.max,
      better: 'lower',
      baseline: { subject: 'write p50', value: p.p50 },
      note: `longest of ${p.writes} writes (16 at a time) across ${p.compactions} compactions; p99 ${Math.round(p.p99)} ms`,
    });
  } finally {
    await service.stop();
  }
}

export const startup: Scenario = {
  name: 'startup',
  title: 'Start-up time to a healthy /health (spawn to first 200)',
  async run(ctx) {
    const { rows, details } = ctx;
    const reps = ctx.settings.startup.reps;
    const samples: Record<string, number[]> = { [BARE]: [] };
    const subjects = STORES.map((store) => ({ store, subject: storeLabel(store) }));
    const phases: Record<string, PhaseEnds[]> = {};
    for (const { subject } of subjects) {
      samples[subject] = [];
      phases[subject] = [];
    }
    const errors: Record<string, string> = {};
    // Interleave the subjects so drift on a shared machine hits them alike.
    for (let rep = 0; rep < reps; rep++) {
      if (rep > 0 && ctx.remainingMs() < 5000) break;
      samples[BARE]!.push(await timeBare());
      if (!serviceAvailable()) continue;
      for (const { store, subject } of subjects) {
        if (errors[subject]) continue;
        try {
          samples[subject]!.push(await timeService(store, phases[subject]!));
        } catch (err) {
          errors[subject] = errorMessage(err);
        }
      }
    }
    const bare = summarize(samples[BARE]!);
    details[BARE] = { ...bare, samples: samples[BARE] };
    rows.add({ subject: BARE, metric: 'start-up p50', unit: 'ms', value: bare.p50, better: 'lower', note: `${bare.count} starts, min ${Math.round(bare.min)} ms` });
    for (const { subject } of subjects) {
      if (!serviceAvailable()) {
        rows.skip(subject, 'start-up p50', SKIP_SERVICE_REASON);
        continue;
      }
      if (errors[subject] && samples[subject]!.length === 0) {
        rows.add({ subject, metric: 'start-up p50', unit: 'ms', value: null, note: `error: ${errors[subject]}` });
        continue;
      }
      const svc = summarize(samples[subject]!);
      details[subject] = { ...svc, samples: samples[subject], error: errors[subject] };
      rows.add({
        subject,
        metric: 'start-up p50',
        unit: 'ms',
        value: svc.p50,
        better: 'lower',
        baseline: { subject: BARE, value: bare.p50 },
        note: `${svc.count} starts, min ${Math.round(svc.min)} ms, empty state`,
      });
      // Each start against the goal's bound (1 s to a healthy /health on an empty state).
      const store = subject.includes('sqlite') ? 'sqlite' : 'json';
      addPhaseRows(ctx, subject, phases[subject]!, '');
      rows.compare({ id: `startup/${store}/empty`, subject, baseline: '', metric: 'start to healthy', unit: 'ms', better: 'lower', rounds: samples[subject]!.map((value) => ({ value, baseline: 1 })) });
    }
    const large = ctx.settings.startup.largeState;
    for (const store of STORES) {
      const subject = storeLabel(store);
      if (!serviceAvailable() || !storeModuleAvailable()) {
        rows.skip(subject, 'restart with a large state', SKIP_SERVICE_REASON);
        continue;
      }
      if (ctx.remainingMs() < 10_000) {
        rows.skip(subject, 'restart with a large state', 'time budget spent');
        continue;
      }
      try {
        await restartLarge(ctx, store, large);
      } catch (err) {
        rows.add({ subject, metric: 'restart with a large state', unit: '', value: null, note: `error: ${errorMessage(err)}` });
      }
    }
  },
};
