/**
 * 6. Start-up time: from spawning the process to the first 200 from GET /health, polled every
 * 5 ms on a port chosen up front. The service starts from an empty state (both stores); the
 * baseline is the bare Fastify peer started the same way (plain node, same polling).
 */
import { join } from 'node:path';
import type { Scenario } from '../lib/scenario.js';
import { launchService, serviceAvailable, SKIP_SERVICE_REASON, storeLabel, STORES, type StoreKind } from '../lib/service.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import { summarize } from '../lib/stats.js';
import { errorMessage, freePort, sleep } from '../lib/util.js';
import { assertLoopback } from '../lib/loopback.js';

const BARE = 'bare fastify';

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

async function timeService(store: StoreKind): Promise<number> {
  const port = await freePort();
  const stop = { done: false };
  const t0 = performance.now();
  const polling = firstHealthy(port, 60_000, stop);
  let service: Awaited<ReturnType<typeof launchService>> | null = null;
  try {
    service = await launchService({ store, config: { port } });
    const t1 = await polling;
    if (t1 === null) throw new Error('service never answered /health with 200');
    return t1 - t0;
  } finally {
    stop.done = true;
    await polling.catch(() => null);
    if (service) await service.stop();
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
    for (const { subject } of subjects) samples[subject] = [];
    const errors: Record<string, string> = {};
    // Interleave the subjects so drift on a shared machine hits them alike.
    for (let rep = 0; rep < reps; rep++) {
      if (rep > 0 && ctx.remainingMs() < 5000) break;
      samples[BARE]!.push(await timeBare());
      if (!serviceAvailable()) continue;
      for (const { store, subject } of subjects) {
        if (errors[subject]) continue;
        try {
          samples[subject]!.push(await timeService(store));
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
    }
  },
};
