/**
 * The PostgreSQL store: trigger admission over HTTP and end-to-end in-process tasks with an
 * exactly-once count, with one service instance and with three instances sharing one database
 * (each in a schema of its own run, dropped afterwards), against pg-boss on the same database.
 * Three instances share one queue: a key sent to any of them runs once.
 */
import pg from 'pg';
import { onCleanup } from '../lib/cleanup.js';
import { makePlan, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import { launchService, OPERATOR_KEY, runsTotal, serviceAvailable, SKIP_SERVICE_REASON, trigger, type BenchService } from '../lib/service.js';
import { errorMessage, runPool, waitFor } from '../lib/util.js';
import { PG_URL, pgBossAvailable, runPgBoss } from '../peers/pg-boss.js';

const TYPE = 'doc-sync';
const SIZES = {
  quick: { admissionSec: 3, connections: 48, unique: 300, duplicates: 30 },
  full: { admissionSec: 10, connections: 48, unique: 2000, duplicates: 200 },
};

/** `instances` services on one fresh schema; all stopped and the schema dropped at cleanup. */
async function launchCluster(ctx: ScenarioContext, instances: number): Promise<{ services: BenchService[]; schema: string; stop: () => Promise<void> }> {
  const schema = `bench_pg_${process.pid}_${Date.now().toString(36)}_${instances}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  const dropSchema = onCleanup(`bench schema ${schema}`, async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  });
  const services: BenchService[] = [];
  const stop = async () => {
    for (const s of services) await s.stop();
    await dropSchema();
  };
  try {
    // One after another: the first applies the migrations under the advisory lock.
    for (let i = 0; i < instances; i++) {
      services.push(
        await launchService({
          store: 'json',
          config: { stateFile: 'postgres', databaseUrl: url.toString(), concurrency: ctx.settings.concurrency, runRetention: 100_000 },
        }),
      );
    }
    return { services, schema, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Admission load split over the instances (connections shared out), summed. */
async function admission(ctx: ScenarioContext, services: BenchService[], durationSec: number, connections: number): Promise<{ rps: number; p50: number; p99: number; errors: number }> {
  const tag = `pgadm-${process.pid}-${Date.now().toString(36)}`;
  let counter = 0;
  const body = () => JSON.stringify({ type: TYPE, payload: { idempotencyKey: `${tag}-${counter++}` } });
  const each = Math.max(1, Math.floor(connections / services.length));
  const summaries: LoadSummary[] = await Promise.all(
    services.map((s, i) =>
      runLoad({
        title: `postgres admission ${i}`,
        url: s.url,
        connections: each,
        method: 'POST',
        path: '/api/tasks/trigger',
        headers: { authorization: `Bearer ${OPERATOR_KEY}` },
        body: body(),
        setup: () => ({ body: body() }),
        durationSec,
        maxMs: durationSec * 1000 + 10_000,
      }),
    ),
  );
  const worst = (pick: (s: LoadSummary) => number) => Math.max(...summaries.map(pick));
  return {
    rps: summaries.reduce((sum, s) => sum + s.okRps, 0),
    p50: worst((s) => s.latencyMs.p50),
    p99: worst((s) => s.latencyMs.p99),
    errors: summaries.reduce((sum, s) => sum + s.errors + (s.ok2xx === 0 ? 1 : 0), 0),
  };
}

/**
 * Executions of the plan's keys, read from the shared database itself: runs carrying a key of the
 * plan beyond one per key, and attempts started more than once.
 */
async function executionsOf(schema: string, tag: string): Promise<{ runs: number; reexecuted: number }> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ runs: string; reexecuted: string }>(
      `SELECT COUNT(*) AS runs,
              COALESCE(SUM(GREATEST(0, (SELECT COUNT(*) FROM jsonb_array_elements(doc->'queueAttempts') a WHERE a->>'state' = 'running') - 1)), 0) AS reexecuted
       FROM "${schema}".runs WHERE run_id LIKE $1`,
      [`${tag}-%`],
    );
    return { runs: Number(rows[0]!.runs), reexecuted: Number(rows[0]!.reexecuted) };
  } finally {
    await client.end();
  }
}

/** The e2e exactly-once plan sent round-robin over the instances; counts read from the shared store. */
async function endToEnd(services: BenchService[], schema: string, plan: ExactlyOncePlan, timeoutMs: number): Promise<ExactlyOnceResult> {
  const n = plan.unique.length;
  const url = services[0]!.url;
  const codes: Record<string, number> = {};
  let next = 0;
  const submit = async (key: string) => {
    const res = await trigger(services[next++ % services.length]!.url, TYPE, { idempotencyKey: key });
    codes[res.code] = (codes[res.code] ?? 0) + 1;
  };
  const before = await runsTotal(url, { type: TYPE });
  const t0 = performance.now();
  await runPool(plan.submissions, 50, submit);
  const submitMs = performance.now() - t0;
  const done = await waitFor(
    async () => ((await runsTotal(url, { type: TYPE, status: 'success' })) + (await runsTotal(url, { type: TYPE, status: 'failed' })) >= before + n ? true : null),
    { timeoutMs, intervalMs: 25 },
  );
  const durationMs = performance.now() - t0;
  await runPool(plan.late, 50, submit);
  const executions = await executionsOf(schema, plan.tag);
  const extraRuns = Math.max(0, executions.runs - n) + executions.reexecuted;
  const failed = await runsTotal(url, { type: TYPE, status: 'failed' });
  return {
    system: `service (postgres, ${services.length} instance${services.length > 1 ? 's' : ''})`,
    unique: n,
    duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
    completed: n - failed,
    failed,
    missing: 0,
    duplicatesExecuted: extraRuns,
    durationMs,
    submitMs,
    tasksPerSec: done ? n / (durationMs / 1000) : Number.NaN,
    timedOut: done === null,
    settings: { instances: services.length },
    extra: { responseCodes: codes },
  };
}

/** The same plan under keys of their own per cluster (the runs of an earlier cluster are in another schema anyway). */
function keyedFor(plan: ExactlyOncePlan, instances: number): ExactlyOncePlan {
  const rekey = (k: string) => k.replace(plan.tag, `${plan.tag}x${instances}`);
  return { ...plan, tag: `${plan.tag}x${instances}`, unique: plan.unique.map(rekey), submissions: plan.submissions.map(rekey), late: plan.late.map(rekey) };
}

export const postgres: Scenario = {
  name: 'postgres',
  title: 'PostgreSQL store: admission and end to end with one and three instances, against pg-boss',
  async run(ctx) {
    const { rows, details } = ctx;
    const size = SIZES[ctx.mode];
    if (!(await pgBossAvailable())) {
      rows.skip('postgres', 'all', 'postgresql not reachable on 127.0.0.1:5432/test');
      return;
    }
    const plan = makePlan('pgstore', size.unique, size.duplicates);
    let boss: ExactlyOnceResult | null = null;
    try {
      boss = await runPgBoss(plan, {
        concurrency: ctx.settings.concurrency,
        submitConcurrency: 50,
        settleMs: 1000,
        timeoutMs: Math.max(10_000, ctx.remainingMs() / 4),
        batchSize: 100,
        pollingIntervalSeconds: 0.5,
      });
      details['pg-boss'] = boss;
      rows.add({ subject: 'pg-boss', metric: 'tasks/s', unit: '', value: boss.tasksPerSec, better: 'higher', note: `${boss.unique} unique + ${boss.duplicatesSubmitted} duplicates` });
    } catch (err) {
      rows.add({ subject: 'pg-boss', metric: 'tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
    }
    for (const instances of [1, 3]) {
      const subject = `service (postgres, ${instances} instance${instances > 1 ? 's' : ''})`;
      if (!serviceAvailable()) {
        rows.skip(subject, 'req/s, tasks/s', SKIP_SERVICE_REASON);
        continue;
      }
      if (ctx.remainingMs() < 10_000) {
        rows.skip(subject, 'req/s, tasks/s', 'time budget spent');
        continue;
      }
      try {
        const cluster = await launchCluster(ctx, instances);
        try {
          // End to end first, on an empty queue; the admission load after it leaves runs queued behind it.
          const r = await endToEnd(cluster.services, cluster.schema, keyedFor(plan, instances), Math.max(10_000, ctx.remainingMs() / 2));
          details[subject] = r;
          rows.add({ subject, metric: 'tasks/s vs pg-boss', unit: '', value: r.tasksPerSec, better: 'higher', baseline: { subject: 'pg-boss', value: boss ? boss.tasksPerSec : null } });
          rows.add({ subject, metric: 'duplicatesExecuted', unit: '', value: r.duplicatesExecuted, better: 'lower', note: 'must be 0' });
          const adm = await admission(ctx, cluster.services, size.admissionSec, size.connections);
          details[`${subject} admission`] = adm;
          rows.add({ subject, metric: 'admission req/s', unit: '', value: adm.rps, better: 'higher', note: `${size.connections} connections` });
          rows.add({ subject, metric: 'admission p99', unit: 'ms', value: adm.p99, better: 'lower' });
        } finally {
          await cluster.stop();
        }
      } catch (err) {
        rows.add({ subject, metric: 'req/s, tasks/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
      }
    }
  },
};
