/**
 * The PostgreSQL store: end-to-end in-process tasks with an exactly-once count and trigger
 * admission over HTTP, with one service instance and with three sharing one database (each
 * cluster in a schema of its own, dropped afterwards), against pg-boss at its best (swept over
 * workers × batch size) on the same database and against the PostgreSQL admission ceiling (bare
 * Fastify inserting each request's row into one table, commits grouped). The service's run slots
 * per instance are tried end to end with one instance first, at 64, at 256 and at pg-boss's best
 * point's jobs at once (workers x batch size, up to the service's maximum): each system at its
 * best, and at the same worker concurrency at most.
 *
 * Every row checks its own work: every acknowledged key is stored; exactly-once is counted from
 * the handler's own execution log (a preload wraps the service's doc-sync handler; pg-boss's
 * worker counts in its handler), not from the systems' records; only successes count as
 * throughput; late duplicates are awaited before counting. A failed check fails its row and any
 * ratio against it.
 */
import pg from 'pg';
import { MAX_RUN_SLOTS } from '../../src/config/schema.js';
import { onCleanup } from '../lib/cleanup.js';
import { analyzeCounts, exactlyOnceChecks, makePlan, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { benchFault, CEILING_500_EVERY, startAckDroppingProxy, type AckDroppingProxy } from '../lib/fault.js';
import { handlerLog, type HandlerLog } from '../lib/handler-log.js';
import { vacuumCatalogs } from '../lib/pg-catalogs.js';
import { acknowledgedKey, compareKeys } from '../lib/key-sets.js';
import { runLoad, type LoadSummary } from '../lib/load.js';
import { benchCpuMs, cpuMeter, describeCpu, postgresCpuMs, processCpuMs } from '../lib/process-cpu.js';
import type { Scenario, ScenarioContext } from '../lib/scenario.js';
import {
  launchService,
  makeBaseDir,
  OPERATOR_KEY,
  runsTotal,
  serviceAvailable,
  SKIP_SERVICE_REASON,
  storedRunIds,
  trigger,
  unfinishedRuns,
  type BenchService,
} from '../lib/service.js';
import { errorMessage, runPool, sleep, waitFor } from '../lib/util.js';
import { startBareFastify, type BareFastify } from '../peers/launch-bare-fastify.js';
import { PG_URL, pgBossAvailable, postgresDurability, runPgBoss, sweepPgBoss } from '../peers/pg-boss.js';

const TYPE = 'doc-sync';
const PG_BOSS = 'pg-boss';
const CEILING = 'bare fastify + postgres';
/** One instance without run slots (concurrency 0): it admits, instances with slots run. */
const ADMISSION_ONLY = 'service (postgres, admission only)';
const SUBMIT_CONCURRENCY = 50;
/** Run slots always tried besides pg-boss's own concurrency. */
const SERVICE_RUN_SLOT_CHOICES = [64, 256];
/** pg-boss 10 refuses a shorter interval; its workers skip it while they find jobs. */
const PG_BOSS_POLLING_SECONDS = 0.5;

/** The service's row subject with `instances` instances: "service (postgres, 3 instances)". */
const serviceSubject = (instances: number) => `service (postgres, ${instances} instance${instances > 1 ? 's' : ''})`;

interface Cluster {
  services: BenchService[];
  /** Where clients send: the services, or under `drop-one-ack` a fault proxy in front of the first. */
  urls: string[];
  log: HandlerLog;
  proxy: AckDroppingProxy | null;
  stop: () => Promise<void>;
}

/** `instances` services on one fresh schema, their doc-sync handler logging each execution. */
async function launchCluster(instances: number, runSlots: number, dropOneAck: boolean): Promise<Cluster> {
  const schema = `bench_pg_${process.pid}_${Date.now().toString(36)}_${instances}`;
  const url = new URL(PG_URL);
  url.searchParams.set('schema', schema);
  const scratch = makeBaseDir('orch-bench-pglog-');
  const log = handlerLog(scratch.dir);
  const dropSchema = onCleanup(`bench schema ${schema}`, async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).finally(() => client.end());
  });
  const services: BenchService[] = [];
  let proxy: AckDroppingProxy | null = null;
  const stop = async () => {
    await proxy?.stop();
    for (const s of services) await s.stop();
    await dropSchema();
    await scratch.remove();
  };
  try {
    // One after another: the first applies the migrations under the advisory lock.
    for (let i = 0; i < instances; i++) {
      services.push(
        await launchService({
          store: 'json',
          config: { stateFile: 'postgres', databaseUrl: url.toString(), concurrency: runSlots, runRetention: 1_000_000 },
          env: log.env,
        }),
      );
    }
    const urls = services.map((s) => s.url);
    if (dropOneAck) {
      proxy = await startAckDroppingProxy(urls[0]!);
      urls[0] = proxy.url;
    }
    return { services, urls, log, proxy, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** CPU of every instance together, whichever of them a phase loaded. */
function servicesCpuMs(services: BenchService[]): number | null {
  let total = 0;
  for (const s of services) {
    const ms = processCpuMs(s.pid);
    if (ms === null) return null;
    total += ms;
  }
  return total;
}

function clusterCpu(services: BenchService[]) {
  return cpuMeter({
    service: () => servicesCpuMs(services),
    postgres: postgresCpuMs,
    bench: benchCpuMs,
  });
}

/**
 * The exactly-once plan sent round-robin over the instances. Executions come from the handler's
 * log; successes from the service's run status (a failed run is no throughput); every key
 * answered 202 must be stored.
 */
async function endToEnd(cluster: Cluster, plan: ExactlyOncePlan, timeoutMs: number, settleMs: number, runSlots: number) {
  const n = plan.unique.length;
  const url = cluster.services[0]!.url;
  const codes: Record<string, number> = {};
  const acknowledged = new Set<string>();
  let next = 0;
  /** One trigger, round-robin over the instances; its answer's run id joins `into` when it is a 202. */
  const send = async (key: string, into: Set<string>) => {
    const res = await trigger(cluster.urls[next++ % cluster.urls.length]!, TYPE, { idempotencyKey: key });
    if (res.code === 202) into.add(res.body.runId ?? key);
    return res.code;
  };
  const submit = async (key: string) => {
    const code = await send(key, acknowledged);
    codes[code] = (codes[code] ?? 0) + 1;
  };
  const count = async (status: 'success' | 'failed') => runsTotal(url, { type: TYPE, status });
  // The warm-up keys first, run to the end (ExactlyOncePlan.warmup); the timed phase counts from there.
  const warmAcknowledged = new Set<string>();
  await runPool(plan.warmup, SUBMIT_CONCURRENCY, async (key) => {
    const code = await send(key, warmAcknowledged);
    if (code !== 202) throw new Error(`warm-up trigger answered ${code}`);
  });
  const warm = await waitFor(async () => ((await count('success')) + (await count('failed')) >= plan.warmup.length ? true : null), { timeoutMs, intervalMs: 25 });
  if (warm === null) throw new Error(`warm-up: ${plan.warmup.length} runs not finished within ${timeoutMs} ms`);
  const base = { success: await count('success'), failed: await count('failed') };
  const terminal = async () => (await count('success')) + (await count('failed')) - base.success - base.failed;
  const cpu = clusterCpu(cluster.services);
  const t0 = performance.now();
  await runPool(plan.submissions, SUBMIT_CONCURRENCY, submit);
  const submitMs = performance.now() - t0;
  const done = await waitFor(async () => ((await terminal()) >= acknowledged.size ? true : null), { timeoutMs, intervalMs: 25 });
  const durationMs = performance.now() - t0;
  const cpuSec = cpu.stop();
  // The late duplicates, then wait until nothing is queued or running: a duplicate that slipped
  // through has run by then and shows in the handler's log.
  await runPool(plan.late, SUBMIT_CONCURRENCY, submit);
  const drained = await waitFor(async () => ((await unfinishedRuns(url, TYPE)) === 0 ? true : null), { timeoutMs: 15_000, intervalMs: 50 });
  await sleep(settleMs);
  const executions = analyzeCounts(plan, cluster.log.counts());
  const successes = (await count('success')) - base.success;
  const failed = (await count('failed')) - base.failed;
  const stored = await storedRunIds(url, TYPE);
  const completed = Math.min(executions.completed, successes);
  const result: ExactlyOnceResult = {
    system: serviceSubject(cluster.services.length),
    unique: n,
    duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
    completed,
    failed,
    missing: executions.missing,
    duplicatesExecuted: executions.duplicatesExecuted,
    durationMs,
    submitMs,
    // Only successes are throughput.
    tasksPerSec: done ? completed / (durationMs / 1000) : Number.NaN,
    timedOut: done === null || drained === null,
    settings: { instances: cluster.services.length, runSlotsPerInstance: runSlots },
    extra: { responseCodes: codes, cpuSec, droppedByFault: cluster.proxy?.dropped() ?? null },
  };
  return { result, keys: compareKeys(new Set([...acknowledged, ...warmAcknowledged]), stored, 0), cpuSec };
}

/** Closed-loop admission on every url at once (connections shared out); acknowledged keys collected. */
async function admissionLoad(urls: string[], headers: Record<string, string>, durationSec: number, connections: number, tag: string, acknowledged: Set<string>) {
  let counter = 0;
  const body = () => JSON.stringify({ type: TYPE, payload: { idempotencyKey: `${tag}-${counter++}` } });
  const each = Math.max(1, Math.floor(connections / urls.length));
  const summaries: LoadSummary[] = await Promise.all(
    urls.map((url, i) =>
      runLoad({
        title: `postgres admission ${i}`,
        url,
        connections: each,
        method: 'POST',
        path: '/api/tasks/trigger',
        headers,
        body: body(),
        setup: () => ({ body: body() }),
        durationSec,
        maxMs: durationSec * 1000 + 10_000,
        onResponse: (status, text) => {
          const key = acknowledgedKey(status, text);
          if (key) acknowledged.add(key);
        },
      }),
    ),
  );
  const statusCodes: Record<string, number> = {};
  for (const s of summaries) for (const [code, c] of Object.entries(s.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + c;
  return {
    rps: summaries.reduce((sum, s) => sum + s.okRps, 0),
    p99: Math.max(...summaries.map((s) => s.latencyMs.p99)),
    non2xx: summaries.reduce((sum, s) => sum + s.non2xx, 0),
    errors: summaries.reduce((sum, s) => sum + s.errors, 0),
    statusCodes,
    /** A timed load stops with up to one request per connection unanswered (it may be stored). */
    inFlightAtStop: each * urls.length,
  };
}

type Admission = Awaited<ReturnType<typeof admissionLoad>>;

interface AdmissionTarget {
  subject: string;
  urls: string[];
  headers: Record<string, string>;
  cpu: () => ReturnType<typeof cpuMeter>;
  acknowledged: Set<string>;
  inFlight: number;
  best: (Admission & { cpuSec: Record<string, number | null> }) | null;
  /** req/s of every counted round, in order (the verdicts pair them round by round). */
  rounds: number[];
  bad: { non2xx: number; errors: number };
}

/** An admission target of the service's instances, with their CPU and the bearer key. */
function serviceTarget(subject: string, cluster: Cluster): AdmissionTarget {
  return {
    subject,
    urls: cluster.urls,
    headers: { authorization: `Bearer ${OPERATOR_KEY}` },
    cpu: () => clusterCpu(cluster.services),
    acknowledged: new Set(),
    inFlight: 0,
    best: null,
    rounds: [],
    bad: { non2xx: 0, errors: 0 },
  };
}

/**
 * Admission in alternating rounds (A/B/A/B), so a host that slows mid-run favours neither; best
 * round of each kept. `warmUp` rounds go first, one per target, checked but not counted: a new
 * process compiles its hot paths in its first seconds.
 */
async function alternate(targets: AdmissionTarget[], rounds: number, durationSec: number, connections: number, warmUp = 0): Promise<void> {
  for (let round = -warmUp; round < rounds; round++) {
    for (const t of targets) {
      const meter = t.cpu();
      const tag = `pgadm-${process.pid}-${Date.now().toString(36)}-${round}-${t.subject.replace(/\W+/g, '')}`;
      const r = await admissionLoad(t.urls, t.headers, durationSec, connections, tag, t.acknowledged);
      const cpuSec = meter.stop();
      t.inFlight += r.inFlightAtStop;
      t.bad.non2xx += r.non2xx;
      t.bad.errors += r.errors;
      if (round >= 0) t.rounds.push(r.rps);
      if (round >= 0 && (!t.best || r.rps > t.best.rps)) t.best = { ...r, cpuSec };
    }
  }
}

async function ceilingKeys(table: string): Promise<Set<string>> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ key: string }>(`SELECT key FROM "${table}"`);
    return new Set(rows.map((r) => r.key));
  } finally {
    await client.end();
  }
}

async function startCeiling(ctx: ScenarioContext, fail500: boolean): Promise<{ bare: BareFastify; table: string; stop: () => Promise<void> }> {
  const table = `bench_ceiling_${process.pid}_${Date.now().toString(36)}`;
  const dropTable = onCleanup(`ceiling table ${table}`, async () => {
    const client = new pg.Client({ connectionString: PG_URL });
    await client.connect();
    await client.query(`DROP TABLE IF EXISTS "${table}"`).finally(() => client.end());
  });
  const bare = await startBareFastify({ pg: { url: PG_URL, table }, ...(fail500 ? { fail500Every: CEILING_500_EVERY } : {}) });
  ctx.log(`${CEILING}: table ${table}`);
  return {
    bare,
    table,
    stop: async () => {
      await bare.stop();
      await dropTable();
    },
  };
}

function rekey(plan: ExactlyOncePlan, suffix: string): ExactlyOncePlan {
  const tag = `${plan.tag}${suffix}`;
  const k = (key: string) => key.replace(plan.tag, tag);
  return { ...plan, tag, unique: plan.unique.map(k), submissions: plan.submissions.map(k), late: plan.late.map(k), warmup: plan.warmup.map(k) };
}

/** The plan with the warm-up of `processes` instances: each runs the plan's count before the timed phase. */
function warmedFor(plan: ExactlyOncePlan, processes: number): ExactlyOncePlan {
  const per = plan.warmup.length;
  return { ...plan, warmup: Array.from({ length: per * processes }, (_, i) => `${plan.tag}-warm-${i}`) };
}

type EndToEnd = Awaited<ReturnType<typeof endToEnd>>;

/** Service and PostgreSQL CPU per completed run over the timed phase (ms), or null without /proc. */
function cpuPerRunMs(e: EndToEnd): number | null {
  const { service, postgres } = e.cpuSec;
  if (service === null || service === undefined || postgres === null || postgres === undefined || e.result.completed <= 0) return null;
  return ((service + postgres) * 1000) / e.result.completed;
}

/** The fastest of `rounds` that passed every check, or null. */
function bestPassing<T>(rounds: T[], passes: (round: T) => boolean, tasksPerSec: (round: T) => number): T | null {
  return rounds.filter(passes).sort((a, b) => tasksPerSec(b) - tasksPerSec(a))[0] ?? null;
}

/** "best of 2 alternating rounds: 2,901, 2,950 tasks/s" (and the sweep's figure at the chosen point, for the record). */
function roundsNote(figures: number[], sweepBest: ExactlyOnceResult | null): string {
  const each = figures.map((f) => (Number.isFinite(f) ? Math.round(f).toLocaleString('en-US') : 'failed')).join(', ');
  const sweep = sweepBest ? `; at the sweep ${Math.round(sweepBest.tasksPerSec).toLocaleString('en-US')}` : '';
  return `best of ${figures.length} alternating round${figures.length === 1 ? '' : 's'}: ${each} tasks/s${sweep}`;
}

function e2eNote(r: ExactlyOnceResult, cpuSec: Record<string, number | null> | undefined): string {
  const parts = [`${r.unique} unique + ${r.duplicatesSubmitted} duplicates`, `${r.completed} succeeded`];
  const s = r.settings;
  if (s.batchSize !== undefined) parts.push(`${String(s.workers)} workers x batch ${String(s.batchSize)} (the sweep's best point)`);
  if (s.runSlotsPerInstance !== undefined) parts.push(`${String(s.runSlotsPerInstance)} run slots per instance`);
  if (r.failed) parts.push(`${r.failed} failed`);
  if (cpuSec) parts.push(describeCpu(cpuSec, r.durationMs / 1000));
  return parts.join('; ');
}

export const postgres: Scenario = {
  name: 'postgres',
  title: 'PostgreSQL store: end to end and admission with one and three instances, against pg-boss and a PostgreSQL ceiling',
  async run(ctx) {
    const { rows, details } = ctx;
    const s = ctx.settings.postgres;
    const fault = benchFault();
    if (!(await pgBossAvailable())) {
      rows.skip('postgres', 'all', 'postgresql not reachable on 127.0.0.1:5432/test');
      return;
    }
    const durability = await postgresDurability();
    details['catalogs vacuumed first'] = await vacuumCatalogs();
    const plan = makePlan('pgstore', s.unique, s.duplicates, s.warmup);
    const passes = (r: ExactlyOnceResult) => exactlyOnceChecks(r).every((c) => c.ok);

    // pg-boss's best setting: every point of the sweep checked, the fastest passing one kept. The
    // sweep only chooses the setting; the figures come from the alternating rounds below.
    ctx.log(`${PG_BOSS}: sweep ${s.pgBossWorkers.join('/')} workers x batch ${s.pgBossBatchSizes.join('/')}`);
    let sweepBest: ExactlyOnceResult | null = null;
    let bossError: string | null = null;
    try {
      const sweep = await sweepPgBoss(
        plan,
        { workers: s.pgBossWorkers, batchSizes: s.pgBossBatchSizes },
        { submitConcurrency: SUBMIT_CONCURRENCY, settleMs: 500, timeoutMs: 30_000, pollingIntervalSeconds: PG_BOSS_POLLING_SECONDS },
        rekey,
        passes,
      );
      sweepBest = sweep.best;
      details['pg-boss sweep'] = sweep.points.map((p) => ({ workers: p.workers, batchSize: p.batchSize, tasksPerSec: p.result?.tasksPerSec ?? null, passed: p.result ? passes(p.result) : false, error: p.error }));
      if (!sweepBest) bossError = sweep.points.map((p) => p.error).filter(Boolean)[0] ?? 'no sweep point ran';
    } catch (err) {
      bossError = errorMessage(err);
    }

    if (!serviceAvailable()) {
      rows.skip('service (postgres)', 'tasks/s, req/s', SKIP_SERVICE_REASON);
      return;
    }
    // The service at its best within the same concurrency: its run slots tried at 64, at 256 and
    // at the jobs pg-boss's best point holds at once (a pg-boss worker runs a whole fetched batch,
    // so that is workers x batch size), the fastest passing setting used for both instance counts.
    // More slots mean larger admission, claim and final-write batches (docs/performance.md).
    const bossWorkers = typeof sweepBest?.settings.workers === 'number' ? sweepBest.settings.workers : ctx.settings.concurrency;
    const bossBatch = typeof sweepBest?.settings.batchSize === 'number' ? sweepBest.settings.batchSize : 1;
    const slotChoices = [...new Set([...SERVICE_RUN_SLOT_CHOICES, Math.min(MAX_RUN_SLOTS, bossWorkers * bossBatch)])].sort((a, b) => a - b);
    const slotSweep: Array<{ runSlots: number; tasksPerSec: number | null; passed: boolean; error?: string }> = [];
    for (const slots of slotChoices) {
      if (slotChoices.length === 1 || ctx.remainingMs() < 60_000) break;
      try {
        const cluster = await launchCluster(1, slots, false);
        try {
          const { result, keys } = await endToEnd(cluster, warmedFor(rekey(plan, `s${slots}`), 1), Math.max(10_000, ctx.remainingMs() / 4), 500, slots);
          slotSweep.push({ runSlots: slots, tasksPerSec: result.tasksPerSec, passed: passes(result) && keys.ok });
        } finally {
          await cluster.stop();
        }
      } catch (err) {
        slotSweep.push({ runSlots: slots, tasksPerSec: null, passed: false, error: errorMessage(err) });
      }
    }
    details['service run-slot sweep (1 instance)'] = slotSweep;
    const fastest = slotSweep.filter((p) => p.passed).sort((a, b) => (b.tasksPerSec ?? 0) - (a.tasksPerSec ?? 0))[0];
    const runSlots = fastest?.runSlots ?? SERVICE_RUN_SLOT_CHOICES[0]!;
    ctx.log(`service: ${runSlots} run slots per instance (tried ${slotSweep.map((p) => `${p.runSlots}: ${p.tasksPerSec?.toFixed(0) ?? 'failed'} tasks/s`).join(', ') || 'one setting'})`);

    // End to end in alternating rounds at the chosen settings (pg-boss, service, pg-boss, ...),
    // so a host that slows mid-run favours neither; the best passing round of each is reported.
    // Neither sweep counts: the best of twelve points would carry twelve draws of the host's
    // noise against the service's one. The service's last round is the one-instance run below,
    // whose instance then serves the admission rounds.
    const bossRounds: ExactlyOnceResult[] = [];
    const singleRounds: EndToEnd[] = [];
    const tripleRounds: EndToEnd[] = [];
    const bossRound = async (round: number) => {
      if (sweepBest === null) return;
      try {
        bossRounds.push(
          await runPgBoss(rekey(plan, `r${round}`), {
            submitConcurrency: SUBMIT_CONCURRENCY,
            settleMs: 500,
            timeoutMs: 30_000,
            pollingIntervalSeconds: PG_BOSS_POLLING_SECONDS,
            concurrency: bossWorkers,
            batchSize: bossBatch,
          }),
        );
      } catch (err) {
        bossError = errorMessage(err);
      }
    };
    // Three instances take their turn in the same rotation: each of the three subjects gets as
    // many rounds as the others, and the ratio of three instances to one compares best with best.
    const serviceRound = async (instances: number, round: number, into: EndToEnd[]) => {
      try {
        const cluster = await launchCluster(instances, runSlots, false);
        try {
          into.push(await endToEnd(cluster, warmedFor(rekey(plan, `r${round}i${instances}`), instances), Math.max(10_000, ctx.remainingMs() / 4), 500, runSlots));
        } finally {
          await cluster.stop();
        }
      } catch (err) {
        ctx.log(`${serviceSubject(instances)}: round ${round} failed: ${errorMessage(err)}`);
      }
    };
    // Another round only when one like the last still leaves the final round and the admission
    // rounds their time (about a third of the scenario's budget).
    const reserveMs = (ctx.settings.postgres.budgetSec * 1000) / 3;
    let roundMs = 0;
    for (let round = 1; round < s.rounds && ctx.remainingMs() > reserveMs + roundMs * 1.3; round++) {
      const roundStart = Date.now();
      ctx.log(`end to end, round ${round} of ${s.rounds}: ${PG_BOSS} (${bossWorkers} workers x batch ${bossBatch}), then the service (${runSlots} run slots) with one instance and with three`);
      await bossRound(round);
      await serviceRound(1, round, singleRounds);
      await serviceRound(3, round, tripleRounds);
      roundMs = Date.now() - roundStart;
    }
    ctx.log(`end to end, round ${s.rounds} of ${s.rounds}: ${PG_BOSS}, then the service with one instance and with three below`);
    await bossRound(s.rounds);
    const boss = bestPassing(bossRounds, passes, (r) => r.tasksPerSec);
    details['pg-boss rounds'] = bossRounds.map((r) => ({ tasksPerSec: r.tasksPerSec, passed: passes(r) }));
    if (boss) {
      details[PG_BOSS] = boss;
      const cpu = boss.extra?.cpuSec as Record<string, number | null> | undefined;
      rows.add({ subject: PG_BOSS, metric: 'tasks/s', unit: '', value: boss.tasksPerSec, better: 'higher', durability, note: `${e2eNote(boss, cpu)}; ${roundsNote(bossRounds.map((r) => r.tasksPerSec), sweepBest)}` });
      const failed = bossRounds.filter((r) => !passes(r)).length;
      for (const c of exactlyOnceChecks(boss)) rows.check(PG_BOSS, c.what, c.ok && failed === 0, failed === 0 ? c.detail : `${c.detail}; ${failed} of ${bossRounds.length} rounds failed a check`);
    } else {
      rows.add({ subject: PG_BOSS, metric: 'tasks/s', unit: '', value: null, note: `error: ${bossError ?? 'no round ran'}` });
    }

    let single: ExactlyOnceResult | null = null;
    /** One instance's end-to-end rounds, which three instances' CPU per run is compared with. */
    let singleAll: EndToEnd[] = [];
    for (const instances of [1, 3]) {
      const subject = serviceSubject(instances);
      if (ctx.remainingMs() < 15_000) {
        rows.skip(subject, 'tasks/s, req/s', 'time budget spent');
        continue;
      }
      try {
        const cluster = await launchCluster(instances, runSlots, fault === 'drop-one-ack');
        try {
          // End to end first, on an empty queue.
          ctx.log(`${subject}: end to end, ${plan.unique.length} unique keys`);
          const measured = await endToEnd(cluster, warmedFor(rekey(plan, `x${instances}`), instances), Math.max(10_000, ctx.remainingMs() / 3), 500, runSlots);
          // The best passing of its rounds; every round's checks count.
          const rounds = [...(instances === 1 ? singleRounds : tripleRounds), measured];
          const roundPasses = (e: EndToEnd) => passes(e.result) && e.keys.ok;
          if (instances === 1) {
            singleAll = rounds;
            rows.compare({ id: 'postgres/one/pg-boss', subject, baseline: PG_BOSS, metric: 'tasks/s', unit: '', better: 'higher', rounds: rounds.map((e, i) => ({ value: roundPasses(e) ? e.result.tasksPerSec : null, baseline: bossRounds[i] && passes(bossRounds[i]) ? bossRounds[i].tasksPerSec : null })) });
          } else {
            rows.compare({
              id: 'postgres/three-one/cpu per run',
              subject,
              baseline: serviceSubject(1),
              metric: 'service + PostgreSQL CPU per run',
              unit: 'ms',
              better: 'lower',
              rounds: rounds.map((e, i) => ({ value: roundPasses(e) ? cpuPerRunMs(e) : null, baseline: singleAll[i] && roundPasses(singleAll[i]) ? cpuPerRunMs(singleAll[i]) : null })),
            });
          }
          const e2e = bestPassing(rounds, roundPasses, (e) => e.result.tasksPerSec) ?? measured;
          const failedRounds = rounds.filter((e) => !roundPasses(e));
          const r = e2e.result;
          details[subject] = { ...r, keys: { ...e2e.keys, missing: e2e.keys.missing.slice(0, 20) }, rounds: rounds.map((e) => ({ tasksPerSec: e.result.tasksPerSec, passed: roundPasses(e) })) };
          const note = `${e2eNote(r, e2e.cpuSec)}; ${roundsNote(rounds.map((e) => e.result.tasksPerSec), null)}`;
          rows.add({ subject, metric: 'tasks/s vs pg-boss', unit: '', value: r.tasksPerSec, better: 'higher', baseline: { subject: PG_BOSS, value: boss ? boss.tasksPerSec : null }, durability, note });
          if (instances === 1) single = r;
          else rows.add({ subject, metric: 'tasks/s vs 1 instance', unit: '', value: r.tasksPerSec, better: 'higher', baseline: { subject: serviceSubject(1), value: single ? single.tasksPerSec : null } });
          const failedKeys = failedRounds.find((e) => !e.keys.ok);
          rows.check(subject, 'every acknowledged key stored', failedKeys === undefined, (failedKeys ?? e2e).keys.detail);
          const failedRun = failedRounds.find((e) => !passes(e.result));
          for (const c of exactlyOnceChecks(failedRun?.result ?? r)) rows.check(subject, `${c.what} (handler log)`, c.ok, c.detail);

          // Admission: the ceiling and the service in alternating rounds (single instance only
          // against the ceiling; three instances measured the same way for their own row). The
          // ceiling only inserts, so beside it runs an instance that only admits (concurrency 0;
          // its runs wait for instances with slots, as in a fleet split into admitting and running
          // instances): the goal's like for like. The instance above admits while it runs its
          // runs at its slots, reported beside it.
          const ceiling = instances === 1 ? await startCeiling(ctx, fault === 'ceiling-500') : null;
          let admitOnly: Cluster | null = null;
          try {
            if (instances === 1) admitOnly = await launchCluster(1, 0, fault === 'drop-one-ack');
            const targets: AdmissionTarget[] = [];
            if (ceiling) {
              targets.push({
                subject: CEILING,
                urls: [ceiling.bare.url],
                headers: {},
                cpu: () => cpuMeter({ ceiling: () => processCpuMs(ceiling.bare.pid), postgres: postgresCpuMs, bench: benchCpuMs }),
                acknowledged: new Set(),
                inFlight: 0,
                best: null,
                rounds: [],
                bad: { non2xx: 0, errors: 0 },
              });
            }
            const only = admitOnly ? serviceTarget(ADMISSION_ONLY, admitOnly) : null;
            if (only) targets.push(only);
            const svc = serviceTarget(subject, cluster);
            targets.push(svc);
            ctx.log(`${subject}: admission, ${s.rounds} rounds of ${s.admissionSec} s${ceiling ? ` alternating with ${CEILING} and ${ADMISSION_ONLY}` : ''}`);
            // The instance above is warm from its end-to-end rounds; the ceiling and the
            // admission-only instance get a round of their own first.
            await alternate(targets.filter((t) => t !== svc), 0, s.admissionSec, s.connections, 1);
            await alternate(targets, s.rounds, s.admissionSec, s.connections);
            const ceilingTarget = ceiling ? targets[0]! : null;
            if (ceilingTarget && ceiling) {
              const b = ceilingTarget.best!;
              details[CEILING] = { ...b, acknowledged: ceilingTarget.acknowledged.size };
              rows.add({ subject: CEILING, metric: 'admission req/s', unit: '', value: b.rps, better: 'higher', durability: `row INSERTed and COMMITted before 202 (group commit); ${durability}`, note: `best of ${s.rounds} rounds; ${describeCpu(b.cpuSec, s.admissionSec)}` });
              rows.add({ subject: CEILING, metric: 'admission p99', unit: 'ms', value: b.p99, better: 'lower' });
              rows.check(CEILING, 'every request answered 2xx', ceilingTarget.bad.non2xx === 0 && ceilingTarget.bad.errors === 0, `${ceilingTarget.bad.non2xx} non-2xx, ${ceilingTarget.bad.errors} socket errors`);
              const keys = compareKeys(ceilingTarget.acknowledged, await ceilingKeys(ceiling.table), ceilingTarget.inFlight);
              rows.check(CEILING, 'stored keys = acknowledged keys', keys.ok, keys.detail);
            }
            const ceilingBest = ceilingTarget?.best ?? null;
            const report = async (t: AdmissionTarget, on: Cluster, metric: string, note: string) => {
              const b = t.best!;
              details[`${t.subject} admission`] = { ...b, acknowledged: t.acknowledged.size };
              rows.add({
                subject: t.subject,
                metric: ceiling ? `${metric} vs ceiling` : metric,
                unit: '',
                value: b.rps,
                better: 'higher',
                baseline: ceilingBest ? { subject: CEILING, value: ceilingBest.rps } : undefined,
                note: `${note}${s.connections} connections, best of ${s.rounds} rounds; ${describeCpu(b.cpuSec, s.admissionSec)}`,
              });
              rows.add({ subject: t.subject, metric: 'admission p99', unit: 'ms', value: b.p99, better: 'lower', baseline: ceilingBest ? { subject: CEILING, value: ceilingBest.p99 } : undefined });
              rows.check(t.subject, 'admission: every request answered 2xx', t.bad.non2xx === 0 && t.bad.errors === 0, `${t.bad.non2xx} non-2xx, ${t.bad.errors} socket errors`);
              const stored = await storedRunIds(on.services[0]!.url, TYPE);
              // The end-to-end keys were checked above; these are the admission loads' own.
              const all = new Set([...t.acknowledged].filter((k) => !k.startsWith(plan.tag)));
              const storedAdmission = new Set([...stored].filter((k) => !k.startsWith(plan.tag)));
              const keys = compareKeys(all, storedAdmission, t.inFlight);
              rows.check(t.subject, 'admission: stored keys = acknowledged keys', keys.ok, keys.detail);
            };
            if (only && admitOnly) await report(only, admitOnly, 'admission req/s', 'concurrency 0: its runs stay queued for instances with slots; ');
            if (only && ceilingTarget) {
              rows.compare({ id: 'postgres/admission', subject: ADMISSION_ONLY, baseline: CEILING, metric: 'admission req/s', unit: '', better: 'higher', rounds: only.rounds.map((value, i) => ({ value, baseline: ceilingTarget.rounds[i] ?? null })) });
            }
            // Let the admitted runs drain before counting what is stored.
            await waitFor(async () => ((await unfinishedRuns(cluster.services[0]!.url, TYPE)) === 0 ? true : null), { timeoutMs: Math.max(5000, ctx.remainingMs() - 10_000), intervalMs: 250 });
            await report(svc, cluster, only ? 'admission req/s while running' : 'admission req/s', `running its runs meanwhile at ${runSlots} run slots per instance; `);
          } finally {
            await ceiling?.stop();
            await admitOnly?.stop();
          }
        } finally {
          await cluster.stop();
        }
      } catch (err) {
        rows.add({ subject, metric: 'tasks/s, req/s', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        details[`${subject} error`] = String(err);
      }
    }
  },
};
