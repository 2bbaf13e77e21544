/**
 * 3. Spawned-worker overhead per run: `summarize-content` through the service (trigger, then
 * poll the run until terminal), one run at a time, against a bare `node` spawn of the same agent
 * entrypoint with a payload file (`node dist/agents/summarization-agent/index.js --payload <file>`).
 */
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { SUMMARIZATION_AGENT_ENTRY, summarizationAgentBuilt } from '../lib/paths.js';
import { getRun, launchService, makeBaseDir, serviceAvailable, SKIP_SERVICE_REASON, storeLabel, TERMINAL, trigger } from '../lib/service.js';
import { summarize } from '../lib/stats.js';
import { errorMessage, waitFor } from '../lib/util.js';
import { spawnAgentOnce } from '../peers/bare-spawn.js';

const BARE = 'bare node spawn';
const AGENT_REASON = 'agent entry not built (dist/agents/summarization-agent/index.js)';

const CONTENT = Array.from(
  { length: 12 },
  (_, i) =>
    `Section ${i + 1}. The nightly batch processed ${120 + i * 7} queue items; ${3 + (i % 4)} needed manual review ` +
    `and ${i % 3} were retried after a transient store timeout. Latency stayed within the agreed budget.`,
).join('\n');

export const PAYLOAD = { sourceType: 'report', content: CONTENT, format: 'executive_summary' };

async function serviceRuns(ctx: ScenarioContext, count: number, warmup: number): Promise<{ samples: number[]; statuses: Record<string, number> }> {
  const service = await launchService({ store: 'json', config: { concurrency: ctx.settings.concurrency } });
  try {
    const samples: number[] = [];
    const statuses: Record<string, number> = {};
    const tag = `spawn-${process.pid}-${Date.now().toString(36)}`;
    for (let i = 0; i < warmup + count; i++) {
      if (ctx.remainingMs() < 2000 && i > warmup) break;
      const key = `${tag}-${i}`;
      const t0 = performance.now();
      const res = await trigger(service.url, 'summarize-content', { ...PAYLOAD, idempotencyKey: key });
      if (res.code !== 202) throw new Error(`trigger answered ${res.code}: ${JSON.stringify(res.body)}`);
      const run = await waitFor(
        async () => {
          const r = await getRun(service.url, key);
          return r && TERMINAL.has(r.status) ? r : null;
        },
        { timeoutMs: 60_000, intervalMs: 10 },
      );
      const ms = performance.now() - t0;
      if (i < warmup) continue;
      const status = run?.status ?? 'timeout';
      statuses[status] = (statuses[status] ?? 0) + 1;
      // A failed run did not do the work: its time is no sample of what the work costs.
      if (status === 'success') samples.push(ms);
    }
    return { samples, statuses };
  } finally {
    await service.stop();
  }
}

export const spawnOverhead: Scenario = {
  name: 'spawn',
  title: 'Spawned-worker overhead per run (summarize-content)',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.spawn;
    const subject = `${storeLabel('json')}`;
    if (!summarizationAgentBuilt()) {
      rows.skip(BARE, 'per-run ms', AGENT_REASON);
      rows.skip(subject, 'per-run ms', serviceAvailable() ? AGENT_REASON : SKIP_SERVICE_REASON);
      return;
    }
    const workspace = makeBaseDir('orch-bench-ws-');
    const bareSamples: number[] = [];
    let bareSuccess = 0;
    let bareAttempts = 0;
    try {
      for (let i = 0; i < s.warmup + s.runs; i++) {
        const outcome = await spawnAgentOnce(SUMMARIZATION_AGENT_ENTRY, PAYLOAD, workspace.dir);
        if (i < s.warmup) continue;
        bareAttempts++;
        if (!outcome.success || outcome.exitCode !== 0) continue;
        bareSuccess++;
        bareSamples.push(outcome.ms);
      }
    } finally {
      await workspace.remove();
    }
    const bare = summarize(bareSamples);
    details[BARE] = { ...bare, samples: bareSamples, success: bareSuccess };
    const bareNote = `${bareSuccess}/${bareAttempts} printed success:true; only those are timed`;
    rows.add({ subject: BARE, metric: 'per-run p50', unit: 'ms', value: bare.p50, better: 'lower', note: bareNote });
    rows.add({ subject: BARE, metric: 'per-run p90', unit: 'ms', value: bare.p90, better: 'lower' });
    rows.check(BARE, 'every spawn succeeded', bareSuccess === bareAttempts && bareAttempts > 0, `${bareSuccess}/${bareAttempts} succeeded`);

    if (!serviceAvailable()) {
      rows.skip(subject, 'per-run ms', SKIP_SERVICE_REASON);
      return;
    }
    try {
      const { samples, statuses } = await serviceRuns(ctx, s.runs, s.warmup);
      const svc = summarize(samples);
      details[subject] = { ...svc, samples, statuses };
      const statusNote = Object.entries(statuses)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ');
      rows.add({ subject, metric: 'per-run p50', unit: 'ms', value: svc.p50, better: 'lower', baseline: { subject: BARE, value: bare.p50 }, note: statusNote });
      rows.add({ subject, metric: 'per-run p90', unit: 'ms', value: svc.p90, better: 'lower', baseline: { subject: BARE, value: bare.p90 } });
      const attempts = Object.values(statuses).reduce((a, b) => a + b, 0);
      rows.check(subject, 'every run succeeded', samples.length === attempts && attempts > 0, `${samples.length}/${attempts} succeeded (${statusNote})`);
      rows.add({ subject, metric: 'overhead p50', unit: 'ms', value: svc.p50 - bare.p50, better: 'lower', note: 'service p50 minus bare p50' });
    } catch (err) {
      rows.add({ subject, metric: 'per-run ms', unit: '', value: null, note: `error: ${errorMessage(err)}` });
      details[`${subject} error`] = String(err);
    }
  },
};
