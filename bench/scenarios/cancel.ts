/**
 * 8. Cancel: time from `POST /api/tasks/runs/:runId/cancel` to the last process of the worker's
 * process group gone, for workers that honour SIGTERM (bound: p99 <= 200 ms) and workers that
 * ignore it, a child included (bound: p99 <= cancelGraceMs + 1 s). The worker is the scripted
 * stand-in (test/fixtures/stand-in-agents) in its `spawn-child` mode: it starts a child in its
 * group and works until stopped. The bench watches the group itself in /proc, every 2 ms, and
 * fails its row when a process of the group survives or a run does not end `cancelled`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { STAND_IN_AGENTS_DIR } from '../../test/support/paths.js';
import { groupMembers, hasProcTable } from '../../src/common/process-table.js';
import { waitForChild } from '../../test/support/process-groups.js';
import { requestJson } from '../lib/http.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { getRun, launchService, makeBaseDir, OPERATOR_KEY, serviceAvailable, SKIP_SERVICE_REASON, trigger, type BenchService } from '../lib/service.js';
import { summarize } from '../lib/stats.js';
import { waitFor } from '../lib/util.js';

/** The cancel grace the service runs with here: a worker that ignores SIGTERM is killed this long after it. */
const GRACE_MS = 1000;
const HONOURS_BOUND_MS = 200;
const IGNORES_BOUND_MS = GRACE_MS + 1000;
/** How long after the request a process of the group may live before the bench calls it a survivor. */
const SURVIVOR_AFTER_MS = GRACE_MS + 5000;
const WATCH_INTERVAL_MS = 2;

interface Variant {
  subject: string;
  /** Payload fields of the stand-in that make the worker and its child behave this way. */
  payload: Record<string, unknown>;
  boundMs: number;
  expectSignal: string;
}

const VARIANTS: Variant[] = [
  { subject: 'worker honours SIGTERM', payload: {}, boundMs: HONOURS_BOUND_MS, expectSignal: 'SIGTERM' },
  { subject: 'worker ignores SIGTERM', payload: { trapTerm: true, childTrapsTerm: true }, boundMs: IGNORES_BOUND_MS, expectSignal: 'SIGKILL' },
];

interface Sample {
  /** Request sent to the last process of the group gone, in ms; null when a process survived. */
  goneMs: number | null;
  status: string;
  signal: string | null;
}

/** Polls the group until it is empty, from `t0`; null when a process lives past `SURVIVOR_AFTER_MS`. */
async function groupGoneAfter(pgid: number, childPid: number, t0: number): Promise<number | null> {
  for (;;) {
    const gone = groupMembers(pgid).length === 0 && groupMembers(childPid).length === 0;
    const now = performance.now();
    if (gone) return now - t0;
    if (now - t0 > SURVIVOR_AFTER_MS) return null;
    await new Promise((resolve) => setTimeout(resolve, WATCH_INTERVAL_MS));
  }
}

async function cancelOnce(service: BenchService, log: string, variant: Variant, key: string): Promise<Sample> {
  const res = await trigger(service.url, 'summarize-content', { content: 'bench', mode: 'spawn-child', log, idempotencyKey: key, ...variant.payload });
  if (res.code !== 202) throw new Error(`trigger answered ${res.code}`);
  const child = await waitForChild(log, key, 20_000);
  const t0 = performance.now();
  const cancelled = await requestJson<{ status: string }>(`${service.url}/api/tasks/runs/${encodeURIComponent(key)}/cancel`, {
    method: 'POST',
    key: OPERATOR_KEY,
    body: {},
  });
  if (cancelled.status !== 202) throw new Error(`cancel answered ${cancelled.status}`);
  const goneMs = await groupGoneAfter(child.workerPid, child.pid, t0);
  const run = await waitFor(
    async () => {
      const r = (await getRun(service.url, key)) as { status: string; cancellation?: { signal: string | null } } | null;
      return r && r.status !== 'running' && r.status !== 'pending' ? r : null;
    },
    { timeoutMs: SURVIVOR_AFTER_MS + 5000, intervalMs: 10 },
  );
  if (goneMs === null) {
    // Left behind: end it so the next sample starts clean, and report the survivor.
    for (const pgid of [child.workerPid, child.pid]) {
      try {
        process.kill(-pgid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  return { goneMs, status: run?.status ?? 'timeout', signal: run?.cancellation?.signal ?? null };
}

async function measure(ctx: ScenarioContext, service: BenchService, log: string, variant: Variant, runs: number): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (let i = 0; i < runs; i++) {
    if (ctx.remainingMs() < SURVIVOR_AFTER_MS + 3000 && samples.length > 0) break;
    samples.push(await cancelOnce(service, log, variant, `cancel-${variant.expectSignal}-${process.pid}-${i}`));
  }
  return samples;
}

export const cancel: Scenario = {
  name: 'cancel',
  title: 'Cancel: request to the last process of the worker\'s group gone',
  async run(ctx) {
    const { rows, details } = ctx;
    const runs = ctx.settings.cancel.runs;
    for (const variant of VARIANTS) {
      if (!serviceAvailable()) rows.skip(variant.subject, 'cancel p99', SKIP_SERVICE_REASON);
      else if (!hasProcTable()) rows.skip(variant.subject, 'cancel p99', 'no /proc: process groups cannot be watched');
    }
    if (!serviceAvailable() || !hasProcTable()) return;
    const work = makeBaseDir('orch-bench-cancel-');
    const log = join(work.dir, 'executions.jsonl');
    writeFileSync(log, '');
    const service = await launchService({
      store: 'json',
      config: {
        agentsDir: STAND_IN_AGENTS_DIR,
        concurrency: 1,
        cancelGraceMs: GRACE_MS,
        laneTimeoutsMs: { 'summarize-content': 600_000 },
        retry: { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 },
      },
    });
    try {
      for (const variant of VARIANTS) {
        const samples = await measure(ctx, service, log, variant, runs);
        const gone = samples.flatMap((s) => (s.goneMs === null ? [] : [s.goneMs]));
        const stats = summarize(gone);
        details[variant.subject] = { ...stats, samples };
        const note = `${samples.length} cancels, cancelGraceMs ${GRACE_MS}; bound p99 <= ${variant.boundMs} ms`;
        rows.add({ subject: variant.subject, metric: 'request to group gone p50', unit: 'ms', value: stats.p50, better: 'lower' });
        rows.add({ subject: variant.subject, metric: 'request to group gone p99', unit: 'ms', value: stats.p99, better: 'lower', note });
        const survivors = samples.filter((s) => s.goneMs === null).length;
        rows.check(variant.subject, 'no process of the group survives', survivors === 0 && samples.length > 0, `${survivors} of ${samples.length} cancels left a process alive past ${SURVIVOR_AFTER_MS} ms`);
        const wrong = samples.filter((s) => s.status !== 'cancelled' || s.signal !== variant.expectSignal);
        rows.check(
          variant.subject,
          `every run ended cancelled (${variant.expectSignal})`,
          wrong.length === 0,
          wrong.length === 0 ? `${samples.length} of ${samples.length}` : `got ${wrong.map((s) => `${s.status}/${s.signal}`).join(', ')}`,
        );
        rows.check(variant.subject, `p99 <= ${variant.boundMs} ms`, gone.length > 0 && stats.p99 <= variant.boundMs, `p99 ${Math.round(stats.p99)} ms`);
      }
    } finally {
      await service.stop();
      await work.remove();
    }
  },
};
