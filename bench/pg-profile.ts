/**
 * Profile of the PostgreSQL store's per-run path: statements, round trips and transactions per
 * run, and time waiting on the database against time in this process, for admission, claim and
 * finish, driven through the store port with the service's own transitions (no HTTP).
 *
 *   TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npx tsx bench/pg-profile.ts [runs] [concurrency]
 *
 * Every `pg` query is one round trip (the driver sends the next only after the last answered),
 * so the shim around `Client.prototype.query` counts both; `BEGIN`/`COMMIT` are counted apart as
 * transactions. Two passes per phase: one operation at a time (the split of each operation's
 * wall time between waiting on the database and running here is then exact), and `concurrency`
 * at a time (throughput, with the database grouping commits). Works in a schema of its own,
 * dropped at the end.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { PostgresStateStore } from '../src/store/postgres/postgres-state-store.js';
import type { AppendRecord, MutateResult } from '../src/store/types.js';
import type { RunRecord } from '../src/domain/run-record.js';
import { isOwnedAttempt, markRunning, markSucceeded, newRunRecord } from '../src/runtime/run-transitions.js';

const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const RUNS = Number(process.argv[2] ?? 400);
const CONCURRENCY = Number(process.argv[3] ?? 32);
const CLAIM_BATCH = 4;
const OWNER = 'profile-owner';
const ACCOUNTING = {
  model: null,
  metered: false,
  costUsd: 0,
  note: 'profile',
  latencyMs: 1,
  usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 },
  budget: { limitUsd: null, remainingUsd: null },
};

interface Tally {
  statements: number;
  transactions: number;
  dbMs: number;
}
const tally: Tally = { statements: 0, transactions: 0, dbMs: 0 };

type QueryFn = (...args: unknown[]) => unknown;
const original = pg.Client.prototype.query as unknown as QueryFn;
(pg.Client.prototype as unknown as { query: QueryFn }).query = function counted(this: pg.Client, ...args: unknown[]) {
  const first = args[0];
  const text = typeof first === 'string' ? first : ((first as { text?: string } | undefined)?.text ?? '');
  tally.statements++;
  if (text === 'BEGIN') tally.transactions++;
  const t0 = performance.now();
  const result = original.apply(this, args);
  if (result instanceof Promise) {
    return result.finally(() => {
      tally.dbMs += performance.now() - t0;
    });
  }
  return result;
};

interface PhaseFigures {
  statementsPerRun: number;
  transactionsPerRun: number;
  /** Summed query latency per run (sequential pass: the operation's time waiting on the database). */
  dbMsPerRun: number;
  /** Wall time per run in the sequential pass minus dbMsPerRun: time in this process. */
  serviceMsPerRun: number;
  /** The same in the concurrent pass, where writes arriving together may share a statement. */
  concurrentStatementsPerRun: number;
  concurrentTransactionsPerRun: number;
  /** This process's CPU per run (user + system) in the concurrent pass. */
  cpuMsPerRun: number;
  /** Runs per second in the concurrent pass. */
  concurrentPerSec: number;
}

async function measure(count: number, parallel: number, op: (i: number) => Promise<unknown>): Promise<{ tally: Tally; wallMs: number; cpuMs: number }> {
  const start = { ...tally };
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < count) await op(next++);
    }),
  );
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  return {
    tally: { statements: tally.statements - start.statements, transactions: tally.transactions - start.transactions, dbMs: tally.dbMs - start.dbMs },
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
  };
}

async function phase(name: string, sequentialCount: number, concurrentCount: number, op: (i: number, pass: 'seq' | 'conc') => Promise<number>): Promise<PhaseFigures> {
  // Runs handled per op differ for claims (a batch), so each op returns how many runs it handled.
  let seqRuns = 0;
  // (`x += await f()` would read x before the await and lose the other workers' counts.)
  const seq = await measure(sequentialCount, 1, async (i) => {
    const handled = await op(i, 'seq');
    seqRuns += handled;
  });
  let concRuns = 0;
  const conc = await measure(concurrentCount, CONCURRENCY, async (i) => {
    const handled = await op(i, 'conc');
    concRuns += handled;
  });
  const per = (x: number, n: number) => (n === 0 ? 0 : x / n);
  const figures: PhaseFigures = {
    statementsPerRun: per(seq.tally.statements, seqRuns),
    transactionsPerRun: per(seq.tally.transactions, seqRuns),
    dbMsPerRun: per(seq.tally.dbMs, seqRuns),
    serviceMsPerRun: per(seq.wallMs - seq.tally.dbMs, seqRuns),
    concurrentStatementsPerRun: per(conc.tally.statements, concRuns),
    concurrentTransactionsPerRun: per(conc.tally.transactions, concRuns),
    cpuMsPerRun: per(conc.cpuMs, concRuns),
    concurrentPerSec: concRuns / (conc.wallMs / 1000),
  };
  console.log(`${name}: ${seqRuns} runs one at a time, ${concRuns} runs ${CONCURRENCY} at a time`);
  return figures;
}

async function main(): Promise<void> {
  const schema = `profile_${process.pid}_${Date.now().toString(36)}`;
  const target = new URL(url);
  target.searchParams.set('schema', schema);
  const store = new PostgresStateStore(target.toString(), { poolSize: 10 });
  await store.open();
  const tag = randomUUID().slice(0, 8);
  const seqN = Math.max(20, Math.floor(RUNS / 4));
  const total = seqN + RUNS;
  const telemetry = (run: RunRecord): AppendRecord[] =>
    (['accepted', 'queued'] as const).map((event) => ({ collection: 'telemetry', record: { event, runId: run.runId, at: new Date().toISOString() }, keep: 5000 }));
  const telemetryFor = (result: MutateResult) => (result.before === null && result.after !== null ? telemetry(result.after) : []);
  const claimed: RunRecord[] = [];
  try {
    const admission = await phase('admission', seqN, RUNS, async (i, pass) => {
      const runId = `${tag}-${pass}-${i}`;
      const now = new Date();
      await store.mutateRunAndAppend(
        runId,
        (current) =>
          current
            ? null
            : newRunRecord({
                runId,
                taskId: randomUUID(),
                type: 'doc-sync',
                internal: false,
                payload: { idempotencyKey: runId },
                source: 'api',
                requestedBy: 'profile',
                now,
                approvalRequired: false,
                approvalReason: null,
                approvedFromTaskId: null,
              }),
        telemetryFor,
      );
      return 1;
    });
    const claimOnce = async () => {
      const now = new Date();
      const runs = await store.claimRuns({ typeLimits: { 'doc-sync': 1_000_000 } }, CLAIM_BATCH, (run) => markRunning(run, OWNER, new Date(now.getTime() + 60_000), now));
      claimed.push(...runs);
      return runs.length;
    };
    const claim = await phase('claim', Math.ceil(seqN / CLAIM_BATCH), Math.ceil(RUNS / CLAIM_BATCH), claimOnce);
    while ((await claimOnce()) > 0);
    if (claimed.length !== total) throw new Error(`claimed ${claimed.length} of ${total}`);
    const finish = await phase('finish', seqN, RUNS, async (i, pass) => {
      const run = claimed[pass === 'seq' ? i : seqN + i]!;
      const now = new Date();
      const written = await store.finishRun(
        run.runId,
        (current) =>
          isOwnedAttempt(current, OWNER, run.attempt)
            ? markSucceeded(current, now, { result: { ok: true }, accounting: ACCOUNTING, operatorSummary: null, recommendedNextActions: null, specialistContract: null })
            : null,
        { record: { type: run.type, status: 'completed', timestamp: now.toISOString(), durationMs: 1 } },
      );
      if (!written.changed) throw new Error(`finish of ${run.runId} did not apply`);
      return 1;
    });
    const counts = await store.countRuns();
    if (counts.byStatus.success !== total) throw new Error(`expected ${total} successes, found ${counts.byStatus.success}`);
    const rows = { admission, claim, finish };
    console.log(JSON.stringify({ runs: RUNS, concurrency: CONCURRENCY, claimBatch: CLAIM_BATCH, rows }, null, 2));
    console.log(
      `| step | statements / run, 1 at a time | transactions / run, 1 at a time | db ms / run, 1 at a time | service ms / run, 1 at a time | statements / run, ${CONCURRENCY} at a time | transactions / run, ${CONCURRENCY} at a time | service CPU ms / run, ${CONCURRENCY} at a time | runs/s, ${CONCURRENCY} at a time |`,
    );
    console.log('|---|---|---|---|---|---|---|---|---|');
    for (const [name, f] of Object.entries(rows)) {
      console.log(
        `| ${name} | ${f.statementsPerRun.toFixed(2)} | ${f.transactionsPerRun.toFixed(2)} | ${f.dbMsPerRun.toFixed(3)} | ${f.serviceMsPerRun.toFixed(3)} | ${f.concurrentStatementsPerRun.toFixed(2)} | ${f.concurrentTransactionsPerRun.toFixed(2)} | ${f.cpuMsPerRun.toFixed(3)} | ${f.concurrentPerSec.toFixed(0)} |`,
      );
    }
  } finally {
    await store.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  }
}

await main();
