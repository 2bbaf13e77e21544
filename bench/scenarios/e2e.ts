/**
 * 2. End-to-end in-process tasks: admit -> run a no-op -> record, in tasks/s, with an
 * exactly-once count. The service runs `doc-sync` against an empty docs folder (its cheapest
 * in-process task), triggered over HTTP by 50 concurrent clients; BullMQ (Redis) and pg-boss
 * (PostgreSQL) run a no-op handler. BullMQ runs twice: on the shared Redis as configured, and on a
 * Redis of the bench's own with `appendonly yes` + `appendfsync always` (durable like the
 * service). pg-boss runs at its best: more workers, larger batches, no poll wait while jobs come. The same plan of N unique keys plus duplicates (half
 * interleaved, half sent after completion) goes to every system; duplicatesExecuted must be 0.
 */
import { exactlyOnceChecks, makePlan, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { redisServerBinary, startDurableRedis } from '../lib/redis-server.js';
import type { RowInput } from '../lib/results.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  getRun,
  launchService,
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
import { errorMessage, runPool, sleep, waitFor } from '../lib/util.js';
import { bullmqAvailable, redisDurability, runBullmq } from '../peers/bullmq.js';
import { pgBossAvailable, postgresDurability, runPgBoss } from '../peers/pg-boss.js';

const TYPE = 'doc-sync';
const BULLMQ = 'bullmq';
const BULLMQ_DURABLE = 'bullmq (aof always)';
const PG_BOSS = 'pg-boss';
/** pg-boss 10 refuses a shorter interval; workers skip it while they find jobs (see the worker). */
const PG_BOSS_MIN_POLLING_SECONDS = 0.5;

async function runService(ctx: ScenarioContext, store: StoreKind, plan: ExactlyOncePlan, timeoutMs: number): Promise<ExactlyOnceResult> {
  const s = ctx.settings.e2e;
  const n = plan.unique.length;
  const service = await launchService({
    store,
    config: { concurrency: s.concurrency, runRetention: Math.max(5000, n * 2) },
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
    return {
      system: storeLabel(store),
      unique: n,
      duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
      completed: n - missing - notSuccess,
      failed,
      missing,
      duplicatesExecuted: extraRuns + reexecuted,
      durationMs,
      submitMs,
      // Only successes are throughput: a failed run is work not done.
      tasksPerSec: terminal ? (n - missing - notSuccess) / (durationMs / 1000) : Number.NaN,
      timedOut: terminal === null,
      settings: { concurrency: s.concurrency, submitConcurrency: s.submitConcurrency, dedupe: 'payload.idempotencyKey' },
      extra: { responseCodes: codes, duplicatesAdmitted, extraRuns, reexecutedRuns: reexecuted, notSuccess, queueLatency: summarize(queueMs) },
    };
  } finally {
    await service.stop();
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

interface Peer {
  name: string;
  available: () => Promise<boolean>;
  durability: () => Promise<string>;
  run: (timeoutMs: number) => Promise<ExactlyOnceResult>;
  down: string;
  /** Started before the peer runs (its own server), stopped after. */
  setup?: () => Promise<() => Promise<void>>;
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
    };
    const results: Record<string, ExactlyOnceResult | null> = {};
    const check = (subject: string, r: ExactlyOnceResult) => {
      for (const c of exactlyOnceChecks(r)) rows.check(subject, c.what, c.ok, c.detail);
    };

    const peerOptions = { concurrency: s.concurrency, submitConcurrency: s.submitConcurrency, settleMs: s.settleMs };
    const redisBinary = redisServerBinary();
    let ownRedisUrl = '';
    const peers: Peer[] = [
      {
        name: BULLMQ,
        available: () => bullmqAvailable(),
        durability: () => redisDurability(),
        run: (timeoutMs) => runBullmq(plan, { ...peerOptions, timeoutMs }),
        down: 'redis not reachable on 127.0.0.1:6379',
      },
      {
        name: BULLMQ_DURABLE,
        available: async () => redisBinary !== null,
        setup: async () => {
          const redis = await startDurableRedis(redisBinary!);
          ownRedisUrl = redis.url;
          return redis.stop;
        },
        durability: () => redisDurability(ownRedisUrl),
        run: (timeoutMs) => runBullmq(plan, { ...peerOptions, timeoutMs, redisUrl: ownRedisUrl }),
        down: 'no redis-server binary on PATH',
      },
      {
        name: PG_BOSS,
        available: pgBossAvailable,
        durability: postgresDurability,
        run: (timeoutMs) =>
          runPgBoss(plan, {
            ...peerOptions,
            concurrency: s.pgBossWorkers,
            timeoutMs,
            batchSize: s.pgBossBatchSize,
            pollingIntervalSeconds: PG_BOSS_MIN_POLLING_SECONDS,
          }),
        down: 'postgresql not reachable on 127.0.0.1:5432/test',
      },
    ];
    // Each system may use its share of what is left (the service runs last and slowest).
    let systemsLeft = peers.length + STORES.length;
    const slice = () => Math.max(10_000, Math.floor(ctx.remainingMs() / Math.max(1, systemsLeft--)));

    for (const peer of peers) {
      results[peer.name] = null;
      if (!(await peer.available())) {
        systemsLeft--;
        rows.skip(peer.name, 'tasks/s', peer.down);
        continue;
      }
      ctx.log(`${peer.name}: ${plan.unique.length} unique + ${plan.submissions.length - plan.unique.length + plan.late.length} duplicates`);
      let teardown: (() => Promise<void>) | null = null;
      try {
        teardown = peer.setup ? await peer.setup() : null;
        const durability = await peer.durability();
        const r = await peer.run(slice());
        results[peer.name] = r;
        details[peer.name] = { ...r, durability };
        rows.add({ subject: peer.name, metric: 'tasks/s', unit: '', value: r.tasksPerSec, better: 'higher', durability, note: notes(r, r.settings) });
        check(peer.name, r);
      } catch (err) {
        rows.add({ subject: peer.name, metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${peer.name} error`] = String(err);
      } finally {
        await teardown?.();
      }
    }

    for (const store of STORES) {
      const subject = storeLabel(store);
      if (!serviceAvailable()) {
        rows.skip(subject, 'tasks/s', SKIP_SERVICE_REASON);
        continue;
      }
      ctx.log(`${subject}: ${plan.unique.length} doc-sync runs`);
      try {
        // The same keys for both stores: each service instance starts from an empty state.
        const r = await runService(ctx, store, plan, slice());
        details[subject] = r;
        const out: RowInput[] = [];
        for (const peer of peers) {
          const base = results[peer.name];
          out.push({
            subject,
            metric: `tasks/s vs ${peer.name}`,
            unit: '',
            value: r.tasksPerSec,
            better: 'higher',
            baseline: { subject: peer.name, value: base ? base.tasksPerSec : null },
            durability: peer === peers[0] ? SERVICE_DURABILITY[store] : undefined,
            note: peer === peers[0] ? notes(r, r.settings) : undefined,
          });
        }
        for (const row of out) rows.add(row);
        // Admit -> start: how long an admitted run waited in the queue (createdAt to startedAt
        // of its last attempt, whole milliseconds), under this burst of 50 concurrent triggers.
        const queue = r.extra?.queueLatency as Summary | undefined;
        if (queue && queue.count > 0) {
          rows.add({ subject, metric: 'admit->start p50', unit: 'ms', value: queue.p50, better: 'lower', note: `${queue.count} runs, burst of ${s.submitConcurrency} concurrent triggers` });
          rows.add({ subject, metric: 'admit->start p99', unit: 'ms', value: queue.p99, better: 'lower' });
        }
        const admittedDuplicates = Number(r.extra?.duplicatesAdmitted ?? 0);
        check(subject, r);
        rows.check(subject, 'no duplicate trigger answered 202', admittedDuplicates === 0, `${admittedDuplicates} duplicate triggers answered 202`);
      } catch (err) {
        rows.add({ subject, metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
