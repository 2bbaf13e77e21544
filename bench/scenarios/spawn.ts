/**
 * 3. Spawned-worker overhead per run: `summarize-content` through the service (trigger, then
 * poll the run until terminal), one run at a time, against a bare `node` spawn of the same agent
 * entrypoint with a payload file (`node dist/agents/summarization-agent/index.js --payload <file>`).
 * Then throughput at the bench's concurrency (4): N runs triggered at once through the service
 * (run concurrency 4) against N bare spawns 4 at a time; only successful runs count.
 */
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { SUMMARIZATION_AGENT_ENTRY, summarizationAgentBuilt } from '../lib/paths.js';
import {
  getRun,
  launchService,
  makeBaseDir,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  TERMINAL,
  trigger,
  type BenchService,
} from '../lib/service.js';
import { summarize } from '../lib/stats.js';
import { errorMessage, runPool, waitFor } from '../lib/util.js';
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

/** One turn of `count` runs through the service, one at a time, after `warmup` uncounted ones. */
async function serviceRuns(ctx: ScenarioContext, service: BenchService, count: number, warmup: number, turn: number): Promise<Samples> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  const tag = `spawn-${process.pid}-${Date.now().toString(36)}-${turn}`;
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
}

/** One turn of `count` bare spawns of the agent entry, after `warmup` uncounted ones. */
async function bareRuns(count: number, warmup: number, workspaceDir: string): Promise<Samples> {
  const samples: number[] = [];
  const statuses: Record<string, number> = {};
  for (let i = 0; i < warmup + count; i++) {
    const outcome = await spawnAgentOnce(SUMMARIZATION_AGENT_ENTRY, PAYLOAD, workspaceDir);
    if (i < warmup) continue;
    const ok = outcome.success && outcome.exitCode === 0;
    statuses[ok ? 'success' : 'failed'] = (statuses[ok ? 'success' : 'failed'] ?? 0) + 1;
    if (ok) samples.push(outcome.ms);
  }
  return { samples, statuses };
}

interface Samples {
  samples: number[];
  statuses: Record<string, number>;
}

const attemptsOf = (t: Samples) => Object.values(t.statuses).reduce((a, b) => a + b, 0);

/** The turns of one side joined: every sample, every status. */
function joined(turns: Samples[]): Samples {
  const statuses: Record<string, number> = {};
  for (const t of turns) for (const [k, v] of Object.entries(t.statuses)) statuses[k] = (statuses[k] ?? 0) + v;
  return { samples: turns.flatMap((t) => t.samples), statuses };
}

const TYPE = 'summarize-content';

/** Successful runs per second for `count` bare spawns, `concurrency` at a time. */
async function bareThroughput(count: number, concurrency: number): Promise<{ perSec: number; ok: number }> {
  const workspace = makeBaseDir('orch-bench-ws-');
  try {
    const t0 = performance.now();
    const outcomes = await runPool(Array.from({ length: count }, (_, i) => i), concurrency, () =>
      spawnAgentOnce(SUMMARIZATION_AGENT_ENTRY, PAYLOAD, workspace.dir),
    );
    const seconds = (performance.now() - t0) / 1000;
    const ok = outcomes.filter((o) => o.success && o.exitCode === 0).length;
    return { perSec: ok / seconds, ok };
  } finally {
    await workspace.remove();
  }
}

/** Successful runs per second for `count` runs triggered at once, the service running `concurrency` at a time. */
async function serviceThroughput(count: number, concurrency: number): Promise<{ perSec: number; ok: number; failed: number }> {
  const service = await launchService({ store: 'json', config: { concurrency } });
  try {
    const tag = `spawn-tp-${process.pid}-${Date.now().toString(36)}`;
    const t0 = performance.now();
    await runPool(Array.from({ length: count }, (_, i) => `${tag}-${i}`), count, async (key) => {
      const res = await trigger(service.url, TYPE, { ...PAYLOAD, idempotencyKey: key });
      if (res.code !== 202) throw new Error(`trigger answered ${res.code}`);
    });
    const done = await waitFor(
      async () => {
        const ok = await runsTotal(service.url, { type: TYPE, status: 'success' });
        const failed = await runsTotal(service.url, { type: TYPE, status: 'failed' });
        return ok + failed >= count ? { ok, failed } : null;
      },
      { timeoutMs: 120_000, intervalMs: 20 },
    );
    const seconds = (performance.now() - t0) / 1000;
    if (!done) throw new Error(`runs not terminal within 120 s`);
    return { perSec: done.ok / seconds, ok: done.ok, failed: done.failed };
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
    // Turns alternate, bare spawns then the service (A,B,A,B,A,B), so a host that slows mid-run
    // favours neither side; each turn's p50 pairs with the other side's of the same round.
    const workspace = makeBaseDir('orch-bench-ws-');
    const bareTurns: Samples[] = [];
    const serviceTurns: Samples[] = [];
    let service: BenchService | null = null;
    let serviceError: unknown = null;
    try {
      if (serviceAvailable()) service = await launchService({ store: 'json', config: { concurrency: ctx.settings.concurrency } });
      for (let round = 0; round < s.rounds; round++) {
        const warmup = round === 0 ? s.warmup : 0;
        ctx.log(`round ${round + 1}/${s.rounds}: ${s.runs} bare spawns, then ${s.runs} runs through the service`);
        bareTurns.push(await bareRuns(s.runs, warmup, workspace.dir));
        if (service && !serviceError) {
          try {
            serviceTurns.push(await serviceRuns(ctx, service, s.runs, warmup, round));
          } catch (err) {
            serviceError = err;
          }
        }
      }
    } finally {
      await service?.stop();
      await workspace.remove();
    }
    const bareAll = joined(bareTurns);
    const bareSamples = bareAll.samples;
    const bareSuccess = bareSamples.length;
    const bareAttempts = attemptsOf(bareAll);
    const bare = summarize(bareSamples);
    details[BARE] = { ...bare, samples: bareSamples, success: bareSuccess, turns: bareTurns };
    const bareNote = `${bareSuccess}/${bareAttempts} printed success:true; only those are timed; ${s.rounds} turns alternating with the service`;
    rows.add({ subject: BARE, metric: 'per-run p50', unit: 'ms', value: bare.p50, better: 'lower', note: bareNote });
    rows.add({ subject: BARE, metric: 'per-run p90', unit: 'ms', value: bare.p90, better: 'lower' });
    rows.check(BARE, 'every spawn succeeded', bareSuccess === bareAttempts && bareAttempts > 0, `${bareSuccess}/${bareAttempts} succeeded`);

    if (!serviceAvailable()) {
      rows.skip(subject, 'per-run ms', SKIP_SERVICE_REASON);
      return;
    }
    try {
      if (serviceError) throw serviceError;
      const { samples, statuses } = joined(serviceTurns);
      const svc = summarize(samples);
      details[subject] = { ...svc, samples, statuses, turns: serviceTurns };
      const statusNote = Object.entries(statuses)
        .map(([k, v]) => `${v} ${k}`)
        .join(', ');
      const p50s = (turns: Samples[]) => turns.map((t) => (t.samples.length ? summarize(t.samples).p50 : null));
      const bareP50s = p50s(bareTurns);
      rows.compare({ id: 'spawn/p50', subject, baseline: BARE, metric: 'per-run p50', unit: 'ms', better: 'lower', rounds: p50s(serviceTurns).map((value, i) => ({ value, baseline: bareP50s[i] ?? null })) });
      rows.add({ subject, metric: 'per-run p50', unit: 'ms', value: svc.p50, better: 'lower', baseline: { subject: BARE, value: bare.p50 }, note: statusNote });
      rows.add({ subject, metric: 'per-run p90', unit: 'ms', value: svc.p90, better: 'lower', baseline: { subject: BARE, value: bare.p90 } });
      const attempts = attemptsOf({ samples, statuses });
      rows.check(subject, 'every run succeeded', samples.length === attempts && attempts > 0, `${samples.length}/${attempts} succeeded (${statusNote})`);
      const n = s.throughputRuns;
      const c = ctx.settings.concurrency;
      const bareTp = await bareThroughput(n, c);
      const svcTp = await serviceThroughput(n, c);
      details.throughput = { bare: bareTp, service: svcTp, runs: n, concurrency: c };
      rows.add({ subject: BARE, metric: `runs/s at concurrency ${c}`, unit: '', value: bareTp.perSec, better: 'higher', note: `${bareTp.ok}/${n} succeeded` });
      rows.add({
        subject,
        metric: `runs/s at concurrency ${c}`,
        unit: '',
        value: svcTp.perSec,
        better: 'higher',
        baseline: { subject: BARE, value: bareTp.perSec },
        note: `${n} triggered at once; ${svcTp.ok} succeeded`,
      });
      rows.check(subject, 'every concurrent run succeeded', svcTp.ok === n && bareTp.ok === n, `service ${svcTp.ok}/${n}, bare ${bareTp.ok}/${n}`);
      rows.add({ subject, metric: 'overhead p50', unit: 'ms', value: svc.p50 - bare.p50, better: 'lower', note: 'service p50 minus bare p50' });
    } catch (err) {
      rows.add({ subject, metric: 'per-run ms', unit: '', value: null, note: `error: ${errorMessage(err)}` });
      details[`${subject} error`] = String(err);
    }
  },
};
