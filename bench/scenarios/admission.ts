/**
 * 1. Trigger admission over HTTP: POST /api/tasks/trigger with a unique idempotency key per
 * request from 50 concurrent connections (autocannon), for the JSON file store and the SQLite
 * store, against a bare Fastify route that does nothing (the ceiling). Each 202 is a durable,
 * idempotent admission; the doc-sync runs it admits drain in the background meanwhile.
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
import { errorMessage } from '../lib/util.js';
import { startBareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify';

function describe(summary: LoadSummary): string {
  const parts = [`${summary.ok2xx} admitted in ${summary.durationSec.toFixed(1)} s`];
  const odd = Object.entries(summary.statusCodes).filter(([code]) => code !== '202');
  if (odd.length) parts.push(`other statuses ${odd.map(([c, n]) => `${c}x${n}`).join(',')}`);
  if (summary.errors) parts.push(`${summary.errors} errors`);
  if (summary.stoppedEarly) parts.push('stopped at time budget');
  return parts.join('; ');
}

async function measure(ctx: ScenarioContext, url: string, title: string, headers: Record<string, string>): Promise<LoadSummary> {
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
  await runLoad({ ...base, title: `${title} warm-up`, durationSec: s.warmupSec, maxMs: s.warmupSec * 1000 + 5000 });
  const durationSec = Math.max(1, Math.min(s.durationSec, Math.floor(ctx.remainingMs() / 1000) - 3));
  ctx.log(`${title}: ${durationSec} s at ${s.connections} connections`);
  return runLoad({ ...base, title, durationSec, maxMs: durationSec * 1000 + 10_000 });
}

export const admission: Scenario = {
  name: 'admission',
  title: 'Trigger admission over HTTP (unique keys, 50 concurrent clients)',
  async run(ctx) {
    const { rows, details } = ctx;
    const bare = await startBareFastify();
    let ceiling: LoadSummary;
    try {
      ceiling = await measure(ctx, bare.url, CEILING, {});
    } finally {
      await bare.stop();
    }
    details[CEILING] = ceiling;
    rows.add({ subject: CEILING, metric: 'req/s', unit: '', value: ceiling.okRps, better: 'higher', note: 'ceiling' });
    rows.add({ subject: CEILING, metric: 'p50', unit: 'ms', value: ceiling.latencyMs.p50, better: 'lower' });
    rows.add({ subject: CEILING, metric: 'p99', unit: 'ms', value: ceiling.latencyMs.p99, better: 'lower' });

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
        const service = await launchService({ store, config: { concurrency: ctx.settings.concurrency } });
        let summary: LoadSummary;
        try {
          summary = await measure(ctx, service.url, subject, { authorization: `Bearer ${OPERATOR_KEY}` });
        } finally {
          await service.stop();
        }
        details[subject] = summary;
        const base = { subject: CEILING };
        rows.add({
          subject,
          metric: 'req/s',
          unit: '',
          value: summary.okRps,
          better: 'higher',
          baseline: { ...base, value: ceiling.okRps },
          note: describe(summary),
        });
        rows.add({ subject, metric: 'p50', unit: 'ms', value: summary.latencyMs.p50, better: 'lower', baseline: { ...base, value: ceiling.latencyMs.p50 } });
        rows.add({ subject, metric: 'p99', unit: 'ms', value: summary.latencyMs.p99, better: 'lower', baseline: { ...base, value: ceiling.latencyMs.p99 } });
      } catch (err) {
        rows.add({ subject, metric: 'req/s, p50, p99', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
