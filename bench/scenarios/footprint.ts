/**
 * 5. Memory and state size after 10,000 and 100,000 runs (quick: fewer) with `runRetention`
 * keeping history bounded. RSS is VmRSS from /proc/<pid>/status of the service process; state
 * size is the bytes of every file in the state folder. Baselines: a bare Fastify process after
 * serving the same number of POSTs, and the stored runs' JSON as the API returns it.
 *
 * Runs go through HTTP (doc-sync, unique keys) in chunks of `runRetention`, each drained before
 * the next, so the backlog stays bounded. The runner is what limits this (a few hundred runs per
 * second here), so a checkpoint that HTTP cannot reach within the time budget is topped up: the
 * service stops gracefully, the missing runs are written as terminal records through the
 * service's own store module (pruned to the retention), the service restarts on that state and
 * a last chunk goes through HTTP before the reading. The row says how many runs came which way.
 */
import { requestJson } from '../lib/http.js';
import { checkAnswers } from '../lib/answers.js';
import { runLoad } from '../lib/load.js';
import { seedRuns } from '../lib/seed.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  runsTotal,
  serviceAvailable,
  serviceRssMiB,
  SKIP_SERVICE_REASON,
  stateBytes,
  storeLabel,
  VIEWER_KEY,
  waitDrained,
  waitHealthy,
  type BenchService,
  type StoreKind,
} from '../lib/service.js';
import { storeModuleAvailable, writeTerminalRuns } from '../lib/store-seed.js';
import { errorMessage, sleep } from '../lib/util.js';
import { startBareFastify } from '../peers/launch-bare-fastify.js';

const BARE = 'bare fastify';
const MiB = 1024 * 1024;
const label = (n: number) => n.toLocaleString('en-US');

/** Mean JSON size of a run record as GET /api/tasks/runs returns it (one page of up to 200). */
async function meanRecordBytes(url: string): Promise<number | null> {
  const res = await requestJson<{ items?: unknown[] }>(`${url}/api/tasks/runs?limit=200`, { key: VIEWER_KEY });
  const items = res.body.items ?? [];
  if (items.length === 0) return null;
  return items.reduce<number>((sum, item) => sum + Buffer.byteLength(JSON.stringify(item)), 0) / items.length;
}

async function bareBaseline(ctx: ScenarioContext): Promise<{ idle: number | null; after: Record<number, number | null>; answers: Answers }> {
  const s = ctx.settings.footprint;
  const bare = await startBareFastify();
  const after: Record<number, number | null> = {};
  const answers = emptyAnswers();
  try {
    await sleep(300);
    const idle = bare.rssMiB();
    let served = 0;
    for (const checkpoint of s.checkpoints) {
      let counter = 0;
      const body = () => JSON.stringify({ type: 'doc-sync', payload: { idempotencyKey: `bare-${counter++}` } });
      const load = await runLoad({
        title: `bare ${checkpoint}`,
        url: bare.url,
        connections: s.connections,
        amount: checkpoint - served,
        maxMs: 60_000,
        method: 'POST',
        path: '/api/tasks/trigger',
        body: body(),
        setup: () => ({ body: body() }),
      });
      served += load.ok2xx;
      answers.completed += load.completed;
      answers.non2xx += load.non2xx;
      answers.errors += load.errors;
      for (const [code, n] of Object.entries(load.statusCodes)) answers.statusCodes[code] = (answers.statusCodes[code] ?? 0) + n;
      await sleep(300);
      after[checkpoint] = bare.rssMiB();
    }
    return { idle, after, answers };
  } finally {
    await bare.stop();
  }
}

async function measureStore(
  ctx: ScenarioContext,
  store: StoreKind,
  share: number,
  bare: { idle: number | null; after: Record<number, number | null>; answers: Answers },
): Promise<void> {
  const { rows, details } = ctx;
  const s = ctx.settings.footprint;
  const subject = storeLabel(store);
  const storeDeadline = Date.now() + share;
  const left = () => storeDeadline - Date.now();
  // HTTP may use this much of the share; the rest is kept for a store top-up and the reading.
  const liveDeadline = Date.now() + share * 0.55;
  const liveLeft = () => liveDeadline - Date.now();
  const finalChunk = Math.min(1000, Math.ceil(s.retention / 2));

  let service: BenchService = await launchService({
    store,
    config: { concurrency: ctx.settings.concurrency, runRetention: s.retention },
  });
  try {
    await waitHealthy(service.url);
    await sleep(500);
    const idle = serviceRssMiB(service);
    const checkpoints: Record<string, unknown>[] = [];
    details[subject] = { idleMiB: idle, retention: s.retention, checkpoints };
    rows.add({ subject, metric: 'RSS idle', unit: 'MiB', value: idle, better: 'lower', baseline: { subject: BARE, value: bare.idle } });

    const tag = `fp-${process.pid}-${Date.now().toString(36)}`;
    let viaHttp = 0;
    let viaStore = 0;
    let chunkNo = 0;
    let httpMs = 0;
    let restarted = false;
    const answers = emptyAnswers();
    const httpChunk = async (n: number, deadlineMs: number) => {
      const t0 = Date.now();
      const { summary } = await seedRuns(service.url, `${tag}-${chunkNo++}`, n, Math.max(1000, Math.floor(deadlineMs * 0.5)), s.connections);
      const drained = await waitDrained(service.url, Math.max(1000, deadlineMs - (Date.now() - t0)));
      viaHttp += summary.ok2xx;
      answers.completed += summary.completed;
      answers.non2xx += summary.non2xx;
      answers.errors += summary.errors;
      for (const [code, c] of Object.entries(summary.statusCodes)) answers.statusCodes[code] = (answers.statusCodes[code] ?? 0) + c;
      httpMs += Date.now() - t0;
      return { admitted: summary.ok2xx, drained: drained !== null };
    };

    for (const checkpoint of s.checkpoints) {
      let drainedAll = true;
      // Live phase: chunks of `retention` while the measured pace says the next chunk fits.
      while (viaHttp + viaStore < checkpoint) {
        const chunk = Math.min(s.retention, checkpoint - viaHttp - viaStore);
        const pace = viaHttp > 0 ? httpMs / viaHttp : 0; // ms per run so far
        if (liveLeft() <= 0 || (pace > 0 && pace * chunk > liveLeft())) break;
        ctx.log(`${subject}: ${label(chunk)} runs over HTTP (${label(viaHttp + viaStore)} so far, to ${label(checkpoint)})`);
        const r = await httpChunk(chunk, Math.max(5000, liveLeft()));
        drainedAll &&= r.drained;
        if (r.admitted === 0) break;
      }
      const missing = checkpoint - viaHttp - viaStore;
      let topUp = 0;
      if (missing > 0 && storeModuleAvailable() && left() > 6000) {
        const last = Math.min(finalChunk, missing);
        topUp = missing - last;
        if (topUp > 0) {
          ctx.log(`${subject}: writing ${label(topUp)} terminal runs through the store module, then restarting`);
          const written = { n: 0 };
          service = await service.restart(async () => {
            const w = await writeTerminalRuns(store, service.stateDir, `${tag}-store-${checkpoint}`, topUp, s.retention);
            written.n = w.written;
          });
          restarted = true;
          viaStore += written.n;
          await waitHealthy(service.url);
        }
        if (last > 0) {
          ctx.log(`${subject}: ${label(last)} runs over HTTP after the restart`);
          const r = await httpChunk(last, Math.max(5000, left() - 5000));
          drainedAll &&= r.drained;
        }
      }
      await sleep(500);
      const total = viaHttp + viaStore;
      const rss = serviceRssMiB(service);
      const bytes = stateBytes(service);
      const stored = await runsTotal(service.url, { includeInternal: 'true' });
      const recordBytes = await meanRecordBytes(service.url);
      checkpoints.push({ checkpoint, runs: total, viaHttp, viaStore, restarted, rssMiB: rss, stateBytes: bytes, storedRuns: stored, meanRecordBytes: recordBytes, drainedAll });
      const note = [
        viaStore > 0 ? `${label(viaHttp)} via HTTP + ${label(viaStore)} written through the store module (service restarted)` : `${label(viaHttp)} runs via HTTP`,
        `${label(stored)} stored (retention ${label(s.retention)})`,
        total < checkpoint ? `partial: time budget reached before ${label(checkpoint)}` : '',
        drainedAll ? '' : 'queue not drained when read',
      ]
        .filter(Boolean)
        .join('; ');
      rows.add({
        subject,
        metric: `RSS @ ${label(checkpoint)} runs`,
        unit: 'MiB',
        value: rss,
        better: 'lower',
        baseline: { subject: `${BARE} after ${label(checkpoint)} POSTs`, value: bare.after[checkpoint] ?? null },
        note,
      });
      rows.add({
        subject,
        metric: `state @ ${label(checkpoint)} runs`,
        unit: 'MiB',
        value: bytes / MiB,
        better: 'lower',
        baseline: { subject: 'stored runs as API JSON', value: recordBytes === null ? null : (recordBytes * stored) / MiB },
      });
      if (left() < 3000) break;
    }
    checkAnswers(rows, subject, 'admissions', answers);
  } finally {
    await service.stop();
  }
}

type Answers = { completed: number; non2xx: number; errors: number; statusCodes: Record<string, number> };
const emptyAnswers = (): Answers => ({ completed: 0, non2xx: 0, errors: 0, statusCodes: {} });

export const footprint: Scenario = {
  name: 'footprint',
  title: 'RSS and state size after N runs (bounded by runRetention)',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.footprint;
    if (!serviceAvailable()) {
      for (const store of s.stores) rows.skip(storeLabel(store), `RSS, state @ ${s.checkpoints.map(label).join(' / ')} runs`, SKIP_SERVICE_REASON);
      return;
    }
    const bare = await bareBaseline(ctx);
    details[BARE] = { idleMiB: bare.idle, afterPostsMiB: bare.after };
    rows.add({ subject: BARE, metric: 'RSS idle', unit: 'MiB', value: bare.idle, better: 'lower' });
    checkAnswers(rows, BARE, 'POSTs', bare.answers);

    for (const [index, store] of s.stores.entries()) {
      const subject = storeLabel(store);
      const share = Math.floor(ctx.remainingMs() / (s.stores.length - index));
      if (share < 10_000) {
        rows.skip(subject, 'RSS, state size', 'time budget spent');
        continue;
      }
      try {
        await measureStore(ctx, store, share, bare);
      } catch (err) {
        rows.add({ subject, metric: 'RSS, state size', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
