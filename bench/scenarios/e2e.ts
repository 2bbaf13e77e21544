/**
 * 2. End-to-end in-process tasks: admit -> run a no-op -> record, in tasks/s, with an
 * exactly-once count. The service runs `doc-sync` against an empty docs folder (its cheapest
 * in-process task), triggered over HTTP by 50 concurrent clients; BullMQ (Redis) and pg-boss
 * (PostgreSQL) run a no-op handler. BullMQ runs twice: on the shared Redis as configured, and on a
 * Redis of the bench's own with `appendonly yes` + `appendfsync always` (durable like the
 * service). pg-boss runs at its best: more workers, larger batches, no poll wait while jobs come.
 * The same plan of N unique keys plus duplicates (half interleaved, half sent after completion)
 * goes to every system, in rounds (every system once per round, in turns), each round checked and
 * the best passing one reported. Executions are counted by each handler itself (the service's
 * doc-sync through the bench's handler-log preload; the peers' workers in their handlers);
 * duplicatesExecuted must be 0 and only successes count as throughput.
 */
import { analyzeCounts, exactlyOnceChecks, makePlan, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { handlerLog } from '../lib/handler-log.js';
import { redisServerBinary, startDurableRedis } from '../lib/redis-server.js';
import type { RowInput } from '../lib/results.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  getRun,
  launchService,
  makeBaseDir,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storeLabel,
  STORES,
  trigger,
  waitDrained,
  type StoreKind,
} from '../lib/service.js';
import { summarize, type Summary } from '../lib/stats.js';
import { benchCpuMs, cpuMeter, describeCpu, processCpuMs } from '../lib/process-cpu.js';
import { errorMessage, runPool, sleep, waitFor } from '../lib/util.js';
import { bullmqAvailable, redisDurability, runBullmq } from '../peers/bullmq.js';
import { pgBossAvailable, postgresDurability, runPgBoss, sweepPgBoss } from '../peers/pg-boss.js';

const TYPE = 'doc-sync';
const BULLMQ = 'bullmq';
const BULLMQ_DURABLE = 'bullmq (aof always)';
const PG_BOSS = 'pg-boss';
/** pg-boss 10 refuses a shorter interval; workers skip it while they find jobs (see the worker). */
const PG_BOSS_MIN_POLLING_SECONDS = 0.5;

async function runService(ctx: ScenarioContext, store: StoreKind, plan: ExactlyOncePlan, timeoutMs: number): Promise<ExactlyOnceResult> {
  const s = ctx.settings.e2e;
  const n = plan.unique.length;
  const scratch = makeBaseDir('orch-bench-e2elog-');
  const log = handlerLog(scratch.dir);
  const service = await launchService({
    store,
    config: { concurrency: s.concurrency, runRetention: Math.max(5000, n * 2) },
    env: log.env,
  });
  try {
    const url = service.url;
    const terminalBefore =
      (await runsTotal(url, { type: TYPE, status: 'success' })) + (await runsTotal(url, { type: TYPE, status: 'failed' }));
    const totalBefore = await runsTotal(url, { type: TYPE });
    const codes: Record<string, number> = {};
    const submit = async (key: string) => {
      const res = await trigger(url, TYPE, { idempotencyKey: key });
      const label = res.code === 200 ? `200 ${res.body.status ?? ''}`.trim() : String(res.code);
      codes[label] = (codes[label] ?? 0) + 1;
      return res.code;
    };

    const cpu = cpuMeter({ service: () => processCpuMs(service.pid), bench: benchCpuMs });
    const t0 = performance.now();
    await runPool(plan.submissions, s.submitConcurrency, submit);
    const submitMs = performance.now() - t0;
    const terminal = await waitFor(
      async () => {
        const success = await runsTotal(url, { type: TYPE, status: 'success' });
        const failed = await runsTotal(url, { type: TYPE, status: 'failed' });
        return success + failed - terminalBefore >= n ? { success, failed } : null;
      },
      { timeoutMs, intervalMs: 20 },
    );
    const durationMs = performance.now() - t0;
    const cpuSec = cpu.stop();

    await runPool(plan.late, s.submitConcurrency, submit);
    // Every 202 beyond one per unique key admitted a duplicate.
    const duplicatesAdmitted = Math.max(0, (codes['202'] ?? 0) - n);
    await sleep(s.settleMs);
    await waitDrained(url, 10_000, TYPE);

    const extraRuns = Math.max(0, (await runsTotal(url, { type: TYPE })) - totalBefore - n);
    let reexecuted = 0;
    let notSuccess = 0;
    let missing = 0;
    const queueMs: number[] = [];
    await runPool(plan.unique, 8, async (key) => {
      const run = await getRun(url, key);
      if (!run) {
        missing++;
        return;
      }
      if (run.createdAt && run.startedAt) queueMs.push(Date.parse(run.startedAt) - Date.parse(run.createdAt));
      if (run.status !== 'success') notSuccess++;
      const starts = (run.queueAttempts ?? []).filter((a) => a.state === 'running').length;
      if (starts > 1) reexecuted += starts - 1;
    });
    const failed = await runsTotal(url, { type: TYPE, status: 'failed' });
    // Executions as the handler itself logged them; the records' figures stay in `extra`.
    const executions = analyzeCounts(plan, log.counts());
    const completed = Math.min(executions.completed, n - missing - notSuccess);
    return {
      system: storeLabel(store),
      unique: n,
      duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
      completed,
      failed,
      missing: Math.max(missing, executions.missing),
      duplicatesExecuted: Math.max(executions.duplicatesExecuted, extraRuns + reexecuted),
      durationMs,
      submitMs,
      // Only successes are throughput: a failed run is work not done.
      tasksPerSec: terminal ? completed / (durationMs / 1000) : Number.NaN,
      timedOut: terminal === null,
      settings: { concurrency: s.concurrency, submitConcurrency: s.submitConcurrency, dedupe: 'payload.idempotencyKey' },
      extra: { responseCodes: codes, duplicatesAdmitted, extraRuns, reexecutedRuns: reexecuted, notSuccess, handlerExecutions: executions, cpuSec, queueLatency: summarize(queueMs) },
    };
  } finally {
    await service.stop();
    await scratch.remove();
  }
}

function notes(r: ExactlyOnceResult, settings?: Record<string, unknown>): string {
  const parts = [`${r.unique} unique + ${r.duplicatesSubmitted} duplicates`, `${r.completed} completed`];
  if (settings?.batchSize !== undefined) parts.push(`${String(settings.workers)} workers x batch ${String(settings.batchSize)}, idle poll ${String(settings.pollingIntervalSeconds)} s`);
  else if (settings?.workerConcurrency !== undefined) parts.push(`worker concurrency ${String(settings.workerConcurrency)}`);
  else if (settings?.concurrency !== undefined) parts.push(`${String(settings.concurrency)} run slots`);
  if (r.failed) parts.push(`${r.failed} failed`);
  if (r.missing) parts.push(`${r.missing} missing`);
  if (r.timedOut) parts.push('timed out');
  return parts.join('; ');
}

const SERVICE_DURABILITY: Record<StoreKind, string> = {
  json: 'run fdatasynced before 202 and at every transition',
  sql: 'run committed and its WAL fdatasynced before 202 and at every transition',
};

interface System {
  name: string;
  available: () => Promise<boolean>;
  durability: () => Promise<string>;
  run: (plan: ExactlyOncePlan, timeoutMs: number) => Promise<ExactlyOnceResult>;
  down: string;
  /** Started before the system's first round (its own server), stopped at the end. */
  setup?: () => Promise<() => Promise<void>>;
  peer: boolean;
}

/** The plan under keys of their own (a round, a sweep point); each system starts from an empty queue anyway. */
function rekey(plan: ExactlyOncePlan, suffix: string): ExactlyOncePlan {
  const tag = `${plan.tag}${suffix}`;
  const k = (key: string) => key.replace(plan.tag, tag);
  return { ...plan, tag, unique: plan.unique.map(k), submissions: plan.submissions.map(k), late: plan.late.map(k), warmup: plan.warmup.map(k) };
}

function forRound(plan: ExactlyOncePlan, round: number): ExactlyOncePlan {
  return round === 0 ? plan : rekey(plan, `r${round}`);
}

export const e2e: Scenario = {
  name: 'e2e',
  title: 'End-to-end in-process tasks (admit, run no-op, record) with exactly-once count',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.e2e;
    const plan = makePlan('e2e', s.unique, s.duplicates);
    details.plan = {
      unique: plan.unique.length,
      submissions: plan.submissions.length,
      interleavedDuplicates: plan.interleavedDuplicates,
      lateDuplicates: plan.late.length,
      rounds: s.rounds,
    };

    const peerOptions = { concurrency: s.concurrency, submitConcurrency: s.submitConcurrency, settleMs: s.settleMs };
    const passes = (r: ExactlyOnceResult) => exactlyOnceChecks(r).every((c) => c.ok) && Number(r.extra?.duplicatesAdmitted ?? 0) === 0;
    let bossTuning: { workers: number; batchSize: number } | null = null;
    const redisBinary = redisServerBinary();
    let ownRedisUrl = '';
    const systems: System[] = [
      {
        name: BULLMQ,
        peer: true,
        available: () => bullmqAvailable(),
        durability: () => redisDurability(),
        run: (p, timeoutMs) => runBullmq(p, { ...peerOptions, timeoutMs }),
        down: 'redis not reachable on 127.0.0.1:6379',
      },
      {
        name: BULLMQ_DURABLE,
        peer: true,
        available: async () => redisBinary !== null,
        setup: async () => {
          const redis = await startDurableRedis(redisBinary!);
          ownRedisUrl = redis.url;
          return redis.stop;
        },
        durability: () => redisDurability(ownRedisUrl),
        run: (p, timeoutMs) => runBullmq(p, { ...peerOptions, timeoutMs, redisUrl: ownRedisUrl }),
        down: 'no redis-server binary on PATH',
      },
      {
        name: PG_BOSS,
        peer: true,
        available: pgBossAvailable,
        durability: postgresDurability,
        run: async (p, timeoutMs) => {
          const base = { ...peerOptions, timeoutMs, pollingIntervalSeconds: PG_BOSS_MIN_POLLING_SECONDS };
          if (bossTuning) return runPgBoss(p, { ...base, concurrency: bossTuning.workers, batchSize: bossTuning.batchSize });
          // First round: the sweep; its fastest passing point is this round's result and the setting of the next.
          const sweep = await sweepPgBoss(p, { workers: s.pgBossWorkers, batchSizes: s.pgBossBatchSizes }, base, rekey, passes);
          details['pg-boss sweep'] = sweep.points.map((pt) => ({ workers: pt.workers, batchSize: pt.batchSize, tasksPerSec: pt.result?.tasksPerSec ?? null, passed: pt.result ? passes(pt.result) : false, error: pt.error }));
          if (!sweep.best) throw new Error(sweep.points.map((pt) => pt.error).filter(Boolean)[0] ?? 'no sweep point ran');
          bossTuning = { workers: Number(sweep.best.settings.workers), batchSize: Number(sweep.best.settings.batchSize) };
          return sweep.best;
        },
        down: 'postgresql not reachable on 127.0.0.1:5432/test',
      },
      ...STORES.map(
        (store): System => ({
          name: storeLabel(store),
          peer: false,
          available: async () => serviceAvailable(),
          durability: async () => SERVICE_DURABILITY[store],
          run: (p, timeoutMs) => runService(ctx, store, p, timeoutMs),
          down: SKIP_SERVICE_REASON,
        }),
      ),
    ];

    // Set up what is available; the rest are skipped rows.
    const live: { system: System; durability: string; teardown: (() => Promise<void>) | null }[] = [];
    for (const system of systems) {
      if (!(await system.available())) {
        rows.skip(system.name, 'tasks/s', system.down);
        continue;
      }
      try {
        const teardown = system.setup ? await system.setup() : null;
        live.push({ system, durability: await system.durability(), teardown });
      } catch (err) {
        rows.add({ subject: system.name, metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
      }
    }

    // Rounds: every system once per round, in the same order (A/B/C/A/B/C), so a host that slows
    // mid-run favours none; each round's result is checked, the best passing one reported.
    const results: Record<string, ExactlyOnceResult[]> = {};
    /** Each system's tasks/s by round index (null: the round failed a check or errored), for the verdicts. */
    const perRound: Record<string, (number | null)[]> = {};
    const errors: Record<string, string> = {};
    let runsLeft = live.length * s.rounds;
    const slice = () => Math.max(10_000, Math.floor(ctx.remainingMs() / Math.max(1, runsLeft--)));
    try {
      let roundMs = 0;
      for (let round = 0; round < s.rounds; round++) {
        // Another round only when one more like the last fits in what is left.
        if (round > 0 && ctx.remainingMs() < roundMs * 1.3 + 3000) {
          ctx.log(`round ${round + 1} skipped: time budget`);
          break;
        }
        const roundStart = Date.now();
        const roundPlan = forRound(plan, round);
        for (const { system } of live) {
          ctx.log(`${system.name}, round ${round + 1}/${s.rounds}: ${plan.unique.length} unique + ${plan.submissions.length - plan.unique.length + plan.late.length} duplicates`);
          const byRound = (perRound[system.name] ??= []);
          byRound[round] = null;
          try {
            const result = await system.run(roundPlan, slice());
            (results[system.name] ??= []).push(result);
            if (passes(result)) byRound[round] = result.tasksPerSec;
          } catch (err) {
            errors[system.name] = errorMessage(err);
            details[`${system.name} error`] = String(err);
          }
        }
        roundMs = Date.now() - roundStart;
      }
    } finally {
      for (const { teardown } of live) await teardown?.();
    }

    const best: Record<string, ExactlyOnceResult | null> = {};
    for (const { system, durability } of live) {
      const all = results[system.name] ?? [];
      const pick = (list: ExactlyOnceResult[]) => list.reduce<ExactlyOnceResult | null>((a, b) => (a === null || (b.tasksPerSec || 0) > (a.tasksPerSec || 0) ? b : a), null);
      // A failed round is reported (its checks fail the row); otherwise the fastest round.
      const failedRound = all.find((r) => !passes(r)) ?? null;
      const chosen = failedRound ?? pick(all);
      best[system.name] = chosen;
      details[system.name] = { rounds: all, durability };
      if (!chosen) {
        rows.add({ subject: system.name, metric: 'tasks/s', unit: '', value: null, note: `error: ${errors[system.name] ?? 'no round ran'}` });
        continue;
      }
      const roundsNote = `${failedRound ? 'a failed round' : `best of ${all.length} rounds`}: ${all.map((r) => formatRate(r.tasksPerSec)).join(' / ')} tasks/s`;
      const cpu = chosen.extra?.cpuSec as Record<string, number | null> | null | undefined;
      const cpuNote = cpu ? describeCpu(cpu, chosen.durationMs / 1000) : '';
      if (system.peer) {
        rows.add({ subject: system.name, metric: 'tasks/s', unit: '', value: chosen.tasksPerSec, better: 'higher', durability, note: [notes(chosen, chosen.settings), roundsNote, cpuNote].filter(Boolean).join('; ') });
      } else {
        const out: RowInput[] = [];
        for (const { system: peer } of live.filter((l) => l.system.peer)) {
          const base = best[peer.name];
          const first = out.length === 0;
          out.push({
            subject: system.name,
            metric: `tasks/s vs ${peer.name}`,
            unit: '',
            value: chosen.tasksPerSec,
            better: 'higher',
            baseline: { subject: peer.name, value: base ? base.tasksPerSec : null },
            durability: first ? durability : undefined,
            note: first ? [notes(chosen, chosen.settings), roundsNote, cpuNote].filter(Boolean).join('; ') : undefined,
          });
        }
        if (out.length === 0) out.push({ subject: system.name, metric: 'tasks/s', unit: '', value: chosen.tasksPerSec, better: 'higher', durability, note: [notes(chosen, chosen.settings), roundsNote, cpuNote].filter(Boolean).join('; ') });
        for (const row of out) rows.add(row);
        compareRounds(rows, system.name, live.filter((l) => l.system.peer).map((l) => l.system.name), perRound);
        // Admit -> start: how long an admitted run waited in the queue (createdAt to startedAt
        // of its last attempt, whole milliseconds), under this burst of concurrent triggers.
        const queue = chosen.extra?.queueLatency as Summary | undefined;
        if (queue && queue.count > 0) {
          rows.add({ subject: system.name, metric: 'admit->start p50', unit: 'ms', value: queue.p50, better: 'lower', note: `${queue.count} runs, burst of ${s.submitConcurrency} concurrent triggers` });
          rows.add({ subject: system.name, metric: 'admit->start p99', unit: 'ms', value: queue.p99, better: 'lower' });
        }
        const admittedDuplicates = Number(chosen.extra?.duplicatesAdmitted ?? 0);
        rows.check(system.name, 'no duplicate trigger answered 202', admittedDuplicates === 0, `${admittedDuplicates} duplicate triggers answered 202`);
      }
      for (const c of exactlyOnceChecks(chosen)) rows.check(system.name, c.what, c.ok, c.detail);
    }
  },
};

/** The service's rounds beside each peer's rounds of the same turn (A/B/C/A/B/C). */
function compareRounds(rows: ScenarioContext['rows'], subject: string, peers: string[], perRound: Record<string, (number | null)[]>): void {
  const store = subject.includes('sqlite') ? 'sqlite' : 'json';
  const mine = perRound[subject] ?? [];
  for (const peer of peers) {
    const theirs = perRound[peer] ?? [];
    rows.compare({ id: `e2e/${store}/${peer}`, subject, baseline: peer, metric: 'tasks/s', unit: '', better: 'higher', rounds: mine.map((value, i) => ({ value, baseline: theirs[i] ?? null })) });
  }
}

function formatRate(v: number): string {
  return Number.isFinite(v) ? String(Math.round(v)) : '-';
}
