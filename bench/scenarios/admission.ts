/**
 * 1. Trigger admission over HTTP: POST /api/tasks/trigger with a unique idempotency key per
 * request from 50 concurrent connections (autocannon), for the JSON file store and the SQLite
 * store, against two ceilings: a bare Fastify route that does nothing (the no-op ceiling) and
 * the same route appending each record with a group-committed fdatasync (the durable ceiling).
 * Each 202 is a durable, idempotent admission; the doc-sync runs it admits drain in the
 * background meanwhile. The bench then checks its own work: the service must hold exactly as
 * many runs as it answered 202 (warm-up included), or the scenario fails.
 */
import { runLoad, type LoadSummary } from '../lib/load.js';
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
import { makeBaseDir, runsTotal } from '../lib/service.js';
import { errorMessage } from '../lib/util.js';
import { startBareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify';
const DURABLE_CEILING = 'bare fastify + fdatasync';
const DURABILITY: Record<string, string> = {
  [CEILING]: 'none (nothing stored)',
  [DURABLE_CEILING]: 'fdatasync before 202 (group commit)',
  json: 'fdatasync of the journal before 202 (group commit)',
  sql: 'SQLite WAL COMMIT, synchronous=FULL, before 202',
};

function describe(summary: LoadSummary): string {
  const parts = [`${summary.ok2xx} admitted in ${summary.durationSec.toFixed(1)} s`];
  const odd = Object.entries(summary.statusCodes).filter(([code]) => code !== '202');
  if (odd.length) parts.push(`other statuses ${odd.map(([c, n]) => `${c}x${n}`).join(',')}`);
  if (summary.errors) parts.push(`${summary.errors} errors`);
  if (summary.stoppedEarly) parts.push('stopped at time budget');
  return parts.join('; ');
}

/** The measured load plus every 202 answered, warm-up included (each one must be stored). */
interface Measured {
  summary: LoadSummary;
  accepted: number;
}

async function measure(ctx: ScenarioContext, url: string, title: string, headers: Record<string, string>): Promise<Measured> {
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
  const summary = await runLoad({ ...base, title, durationSec, maxMs: durationSec * 1000 + 10_000 });
  return { summary, accepted: (warm.statusCodes['202'] ?? 0) + (summary.statusCodes['202'] ?? 0) };
}

async function measureCeiling(ctx: ScenarioContext, title: string, durableFile?: string): Promise<LoadSummary> {
  const bare = await startBareFastify(durableFile ? { durableFile } : {});
  try {
    return (await measure(ctx, bare.url, title, {})).summary;
  } finally {
    await bare.stop();
  }
}

export const admission: Scenario = {
  name: 'admission',
  title: 'Trigger admission over HTTP (unique keys, 50 concurrent clients)',
  async run(ctx) {
    const { rows, details } = ctx;
    const ceiling = await measureCeiling(ctx, CEILING);
    const scratch = makeBaseDir('orch-bench-durable-');
    let durable: LoadSummary;
    try {
      durable = await measureCeiling(ctx, DURABLE_CEILING, join(scratch.dir, 'journal'));
    } finally {
      await scratch.remove();
    }
    for (const [subject, summary, note] of [
      [CEILING, ceiling, 'no-op ceiling'],
      [DURABLE_CEILING, durable, 'durable ceiling'],
    ] as const) {
      details[subject] = summary;
      rows.add({ subject, metric: 'req/s', unit: '', value: summary.okRps, better: 'higher', durability: DURABILITY[subject], note });
      rows.add({ subject, metric: 'p50', unit: 'ms', value: summary.latencyMs.p50, better: 'lower' });
      rows.add({ subject, metric: 'p99', unit: 'ms', value: summary.latencyMs.p99, better: 'lower' });
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
          measured = await measure(ctx, service.url, subject, { authorization: `Bearer ${OPERATOR_KEY}` });
          stored = await runsTotal(service.url, { type: 'doc-sync' });
        } finally {
          await service.stop();
        }
        const summary = measured.summary;
        details[subject] = { ...summary, accepted202: measured.accepted, storedRuns: stored };
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
        // A timed load stops with up to one request per connection in flight: the service may
        // have stored those without the answer being counted. Fewer stored than 202s is a loss.
        const inFlightAtStop = 2 * ctx.settings.admission.connections;
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
