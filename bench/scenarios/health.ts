/**
 * 7. GET /health at 50 connections: the service's public liveness route with everything a request
 * crosses on the way (request id, CORS check, the `health-public` limiter, metrics, the response
 * headers) against a bare Fastify GET /health that answers, from memory, the very bytes the
 * service returned (a perfect ceiling: nothing but routing and the send).
 *
 * The machine is shared, so a burst of other work can sink one load. The ceiling and the service
 * therefore take turns in short rounds, and each subject's figure is its best round (the same rule
 * for both). The bench checks its own work: every response of every round is a 200, no socket
 * failed.
 *
 * Each round also reads the server's main-thread CPU time (/proc, Linux): the CPU per request
 * row compares what one answer costs each server, which the load generator competing for the
 * same two cores disturbs less than it disturbs req/s.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { runLoad, type LoadSummary } from '../lib/load.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, makeBaseDir, serviceAvailable, SKIP_SERVICE_REASON, storeLabel, type BenchService } from '../lib/service.js';
import { formatNumber } from '../lib/table.js';
import { errorMessage, mainThreadCpuMs } from '../lib/util.js';
import { startBareFastify, type BareFastify } from '../peers/launch-bare-fastify.js';

const CEILING = 'bare fastify (same bytes)';

const CPU_METRIC = 'CPU per request';
const CPU_NOTE =
  'main (JavaScript) thread, user + system, least of the rounds: less disturbed than req/s by the load generator sharing the cores, and kernel socket time included';
const round1 = (n: number) => Math.round(n * 10) / 10;

/** A subject's rounds; its figures are those of its best round (highest req/s). */
class Rounds {
  readonly loads: LoadSummary[] = [];
  /** Main-thread CPU per answered request in each round (µs), where /proc could tell. */
  readonly cpuUsPerRequest: number[] = [];

  /** The cheapest round: the least disturbed by the load generator and the rest of the host. */
  get leastCpu(): number | null {
    return this.cpuUsPerRequest.length === 0 ? null : Math.min(...this.cpuUsPerRequest);
  }

  get best(): LoadSummary {
    return this.loads.reduce((a, b) => (b.okRps > a.okRps ? b : a));
  }

  note(): string {
    const parts = [`best of ${this.loads.length} rounds (${this.loads.map((l) => formatNumber(l.okRps)).join(' / ')} req/s)`];
    if (this.loads.some((l) => l.stoppedEarly)) parts.push('stopped at time budget');
    return parts.join('; ');
  }
}

function load(ctx: ScenarioContext, url: string, title: string, durationSec: number): Promise<LoadSummary> {
  const s = ctx.settings.health;
  return runLoad({ title, url, connections: s.connections, durationSec, maxMs: durationSec * 1000 + 5000, path: '/health' });
}

/** One measured round: the load, and the server's main-thread CPU time per request it answered. */
async function round(ctx: ScenarioContext, rounds: Rounds, server: { url: string; pid: number | undefined }, title: string, durationSec: number): Promise<void> {
  const before = mainThreadCpuMs(server.pid);
  const summary = await load(ctx, server.url, title, durationSec);
  const after = mainThreadCpuMs(server.pid);
  rounds.loads.push(summary);
  if (before !== null && after !== null && summary.completed > 0) rounds.cpuUsPerRequest.push(((after - before) * 1000) / summary.completed);
}

/** Every response a 200, no socket errors or time-outs, in every round: refused or failed requests are no figure. */
function checkAll200(rows: ScenarioContext['rows'], subject: string, rounds: Rounds): void {
  const statuses: Record<string, number> = {};
  let errors = 0;
  let timeouts = 0;
  for (const l of rounds.loads) {
    for (const [code, n] of Object.entries(l.statusCodes)) statuses[code] = (statuses[code] ?? 0) + n;
    errors += l.errors;
    timeouts += l.timeouts;
  }
  const ok = statuses['200'] ?? 0;
  const other = Object.entries(statuses).filter(([code]) => code !== '200');
  rows.check(
    subject,
    'every response 200, no errors',
    other.length === 0 && errors === 0 && timeouts === 0 && ok > 0,
    `${ok} x 200` + (other.length ? `, other statuses ${other.map(([c, n]) => `${c}x${n}`).join(',')}` : '') + `, ${errors} errors, ${timeouts} time-outs`,
  );
}

export const health: Scenario = {
  name: 'health',
  title: 'GET /health (public liveness, 50 concurrent clients)',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.health;
    if (!serviceAvailable()) {
      for (const store of s.stores) rows.skip(storeLabel(store), 'req/s, p50, p99', SKIP_SERVICE_REASON);
      return;
    }
    const fixtures = makeBaseDir('orch-bench-health-');
    let bare: BareFastify | null = null;
    let bodyBytes = 0;
    const ceiling = new Rounds();
    /** `ceilingFrom`: the ceiling's first round beside this subject (the ceiling's rounds run beside every store). */
    const measured: { subject: string; store: string; rounds: Rounds; ceilingFrom: number }[] = [];
    try {
      for (const store of s.stores) {
        const subject = storeLabel(store);
        // Warm-ups, then `rounds` turns of both subjects.
        const needMs = (s.warmupSec * 2 + s.durationSec * 2 + 4) * 1000;
        if (ctx.remainingMs() < needMs) {
          rows.skip(subject, 'req/s, p50, p99', 'time budget spent');
          continue;
        }
        let service: BenchService | null = null;
        try {
          service = await launchService({ store, config: { concurrency: ctx.settings.concurrency } });
          if (!bare) {
            // The ceiling answers the service's own bytes (the timestamp and uptime of one answer).
            const res = await fetch(`${service.url}/health`);
            const bytes = Buffer.from(await res.arrayBuffer());
            if (res.status !== 200) throw new Error(`GET /health answered ${res.status}: ${bytes.toString('utf8').slice(0, 200)}`);
            const dir = join(fixtures.dir, 'fx');
            mkdirSync(dir, { recursive: true });
            writeFileSync(join(dir, 'health.json'), bytes);
            bodyBytes = bytes.length;
            bare = await startBareFastify({ fixtureDir: dir });
          }
          ctx.log(`${subject}: warm-up ${s.warmupSec} s each, then ${s.rounds} rounds of ${s.durationSec / s.rounds} s each against the ceiling`);
          await load(ctx, bare.url, `${CEILING} warm-up`, s.warmupSec);
          await load(ctx, service.url, `${subject} warm-up`, s.warmupSec);
          const rounds = new Rounds();
          const ceilingFrom = ceiling.loads.length;
          for (let i = 0; i < s.rounds; i++) {
            const per = s.durationSec / s.rounds;
            await round(ctx, ceiling, bare, `${CEILING} round ${i + 1}`, per);
            await round(ctx, rounds, service, `${subject} round ${i + 1}`, per);
          }
          measured.push({ subject, store, rounds, ceilingFrom });
          details[subject] = rounds.loads;
        } catch (err) {
          rows.add({ subject, metric: 'req/s, p50, p99', unit: '', value: null, note: `error: ${errorMessage(err)}` });
          details[`${subject} error`] = String(err);
        } finally {
          await service?.stop();
        }
      }
    } finally {
      if (bare) await (bare as BareFastify).stop();
      await fixtures.remove();
    }
    if (ceiling.loads.length === 0) return;

    const top = ceiling.best;
    details[CEILING] = { rounds: ceiling.loads, bodyBytes };
    rows.add({ subject: CEILING, metric: 'req/s', unit: '', value: top.okRps, better: 'higher', note: `${ceiling.note()}; ${bodyBytes}-byte body` });
    rows.add({ subject: CEILING, metric: 'p50', unit: 'ms', value: top.latencyMs.p50, better: 'lower' });
    rows.add({ subject: CEILING, metric: 'p99', unit: 'ms', value: top.latencyMs.p99, better: 'lower' });
    checkAll200(rows, CEILING, ceiling);
    const ceilingCpu = ceiling.leastCpu;
    if (ceilingCpu !== null) rows.add({ subject: CEILING, metric: CPU_METRIC, unit: 'µs', value: round1(ceilingCpu), better: 'lower', note: CPU_NOTE });
    for (const { subject, store, rounds, ceilingFrom } of measured) {
      const theirs = ceiling.loads.slice(ceilingFrom);
      rows.compare({
        id: `health/${store === 'sql' ? 'sqlite' : store}`,
        subject,
        baseline: CEILING,
        metric: 'req/s',
        unit: '',
        better: 'higher',
        rounds: rounds.loads.map((l, i) => ({ value: l.okRps, baseline: theirs[i]?.okRps ?? null })),
      });
      const best = rounds.best;
      rows.add({ subject, metric: 'req/s', unit: '', value: best.okRps, better: 'higher', baseline: { subject: CEILING, value: top.okRps }, note: rounds.note() });
      rows.add({ subject, metric: 'p50', unit: 'ms', value: best.latencyMs.p50, better: 'lower', baseline: { subject: CEILING, value: top.latencyMs.p50 } });
      rows.add({ subject, metric: 'p99', unit: 'ms', value: best.latencyMs.p99, better: 'lower', baseline: { subject: CEILING, value: top.latencyMs.p99 } });
      const cpu = rounds.leastCpu;
      if (cpu !== null && ceilingCpu !== null) {
        rows.add({ subject, metric: CPU_METRIC, unit: 'µs', value: round1(cpu), better: 'lower', baseline: { subject: CEILING, value: round1(ceilingCpu) }, note: CPU_NOTE });
      }
      checkAll200(rows, subject, rounds);
    }
  },
};
