/**
 * 2. End-to-end in-process tasks: admit -> run a no-op -> record, in tasks/s, with an
 * exactly-once count. The service runs `doc-sync` against an empty docs folder (its cheapest
 * in-process task), triggered over HTTP by 50 concurrent clients; BullMQ (Redis) and pg-boss
 * (PostgreSQL) run a no-op handler. The same plan of N unique keys plus duplicates (half
 * interleaved, half sent after completion) goes to every system; duplicatesExecuted must be 0.
 */
import { makePlan, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
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
import { errorMessage, runPool, sleep, waitFor } from '../lib/util.js';
import { bullmqAvailable, runBullmq } from '../peers/bullmq.js';
import { pgBossAvailable, runPgBoss } from '../peers/pg-boss.js';

const TYPE = 'doc-sync';

async function runService(ctx: ScenarioContext, store: StoreKind, plan: ExactlyOncePlan, timeoutMs: number): Promise<ExactlyOnceResult> {
  const s = ctx.settings.e2e;
  const n = plan.unique.length;
  const service = await launchService({
    store,
    config: { concurrency: ctx.settings.concurrency, runRetention: Math.max(5000, n * 2) },
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
    await runPool(plan.unique, 8, async (key) => {
      const run = await getRun(url, key);
      if (!run) {
        missing++;
        return;
      }
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
      tasksPerSec: terminal ? n / (durationMs / 1000) : Number.NaN,
      timedOut: terminal === null,
      settings: { concurrency: ctx.settings.concurrency, submitConcurrency: s.submitConcurrency, dedupe: 'payload.idempotencyKey' },
      extra: { responseCodes: codes, duplicatesAdmitted, extraRuns, reexecutedRuns: reexecuted, notSuccess },
    };
  } finally {
    await service.stop();
  }
}

function notes(r: ExactlyOnceResult): string {
  const parts = [`${r.unique} unique + ${r.duplicatesSubmitted} duplicates`, `${r.completed} completed`];
  if (r.failed) parts.push(`${r.failed} failed`);
  if (r.missing) parts.push(`${r.missing} missing`);
  if (r.timedOut) parts.push('timed out');
  return parts.join('; ');
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
    // Each system may use its share of what is left (the service runs last and slowest).
    let systemsLeft = 2 + STORES.length;
    const slice = () => Math.max(10_000, Math.floor(ctx.remainingMs() / Math.max(1, systemsLeft--)));

    const peerOptions = { concurrency: ctx.settings.concurrency, submitConcurrency: s.submitConcurrency, settleMs: s.settleMs };
    const peers: { name: string; available: () => Promise<boolean>; run: (timeoutMs: number) => Promise<ExactlyOnceResult>; down: string }[] = [
      {
        name: 'bullmq',
        available: bullmqAvailable,
        run: (timeoutMs) => runBullmq(plan, { ...peerOptions, timeoutMs }),
        down: 'redis not reachable on 127.0.0.1:6379',
      },
      {
        name: 'pg-boss',
        available: pgBossAvailable,
        run: (timeoutMs) =>
          runPgBoss(plan, { ...peerOptions, timeoutMs, batchSize: s.pgBossBatchSize, pollingIntervalSeconds: 0.5 }),
        down: 'postgresql not reachable on 127.0.0.1:5432/test',
      },
    ];
    for (const peer of peers) {
      results[peer.name] = null;
      if (!(await peer.available())) {
        systemsLeft--;
        rows.skip(peer.name, 'tasks/s', peer.down);
        continue;
      }
      ctx.log(`${peer.name}: ${plan.unique.length} unique + ${plan.submissions.length - plan.unique.length + plan.late.length} duplicates`);
      try {
        const r = await peer.run(slice());
        results[peer.name] = r;
        details[peer.name] = r;
        rows.add({ subject: peer.name, metric: 'tasks/s', unit: '', value: r.tasksPerSec, better: 'higher', note: notes(r) });
        rows.add({ subject: peer.name, metric: 'duplicatesExecuted', unit: '', value: r.duplicatesExecuted, better: 'lower', note: 'must be 0' });
      } catch (err) {
        rows.add({ subject: peer.name, metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${peer.name} error`] = String(err);
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
        for (const peer of ['bullmq', 'pg-boss']) {
          const base = results[peer];
          out.push({
            subject,
            metric: `tasks/s vs ${peer}`,
            unit: '',
            value: r.tasksPerSec,
            better: 'higher',
            baseline: { subject: peer, value: base ? base.tasksPerSec : null },
            note: peer === 'bullmq' ? notes(r) : undefined,
          });
        }
        const admittedDuplicates = Number(r.extra?.duplicatesAdmitted ?? 0);
        const dupNote = admittedDuplicates > 0 ? `must be 0; ${admittedDuplicates} duplicate triggers answered 202` : 'must be 0';
        out.push({ subject, metric: 'duplicatesExecuted', unit: '', value: r.duplicatesExecuted, better: 'lower', note: dupNote });
        for (const row of out) rows.add(row);
      } catch (err) {
        rows.add({ subject, metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
