/**
 * Benchmark suite entry: `npm run bench [-- --quick] [--only a,b] [--out <dir>]`.
 *
 * Runs every scenario against its baselines in one process on this machine, prints a table of
 * absolute figures and ratios and the goals' verdicts (median of alternated rounds), and writes
 * JSON to the output folder (default bench-results/<timestamp>/); `npm run bench:doc` turns its
 * results.json into docs/performance.md. Figures only compare within one run: the ratio is the result.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { MAX_RUN_SLOTS } from '../src/config/schema.js';
import { runCleanups } from './lib/cleanup.js';
import { benchFault } from './lib/fault.js';
import { machineInfo } from './lib/machine.js';
import { ROOT, serviceBuilt } from './lib/paths.js';
import { RowSink, writeReport, type Row, type RunReport, type ScenarioResult } from './lib/results.js';
import type { Scenario, ScenarioContext } from './lib/scenario.js';
import { judgeGoals } from './lib/goals.js';
import { FULL, QUICK, type Settings } from './lib/settings.js';
import { markdownTable, textTable, verdictTable } from './lib/table.js';
import { errorMessage } from './lib/util.js';
import { admission } from './scenarios/admission.js';
import { cancel } from './scenarios/cancel.js';
import { aggregateReads } from './scenarios/aggregate-reads.js';
import { e2e } from './scenarios/e2e.js';
import { fanout } from './scenarios/fanout.js';
import { footprint } from './scenarios/footprint.js';
import { health } from './scenarios/health.js';
import { postgres } from './scenarios/postgres.js';
import { reads } from './scenarios/reads.js';
import { spawnOverhead } from './scenarios/spawn.js';
import { startup } from './scenarios/startup.js';
import { tracing } from './scenarios/tracing.js';
import { flows } from './scenarios/flows.js';
import { fairness } from './scenarios/fairness.js';

const SCENARIOS: Scenario[] = [admission, health, e2e, spawnOverhead, reads, aggregateReads, footprint, startup, postgres, cancel, fanout, tracing, flows, fairness];

interface Args {
  quick: boolean;
  only: string[] | null;
  out: string | null;
  /** Overrides the run concurrency of the service and the queue peers' workers (settings.concurrency). */
  concurrency: number | null;
  help: boolean;
}

function parseArgs(argv: string[]): Args {
  const args: Args = { quick: false, only: null, out: null, concurrency: null, help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const value = () => {
      const v = arg.includes('=') ? arg.slice(arg.indexOf('=') + 1) : argv[++i];
      if (v === undefined || v === '') throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--quick') args.quick = true;
    else if (arg === '--only' || arg.startsWith('--only=')) args.only = value().split(',').map((s) => s.trim()).filter(Boolean);
    else if (arg === '--out' || arg.startsWith('--out=')) args.out = value();
    else if (arg === '--concurrency' || arg.startsWith('--concurrency=')) {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1 || n > MAX_RUN_SLOTS) throw new Error(`--concurrency takes an integer from 1 to ${MAX_RUN_SLOTS}`);
      args.concurrency = n;
    } else if (arg === '--help' || arg === '-h') args.help = true;
    else throw new Error(`unknown argument: ${arg}`);
  }
  return args;
}

const USAGE = `usage: npm run bench -- [--quick] [--only <scenario>[,<scenario>]] [--out <dir>] [--concurrency <n>]
scenarios: ${SCENARIOS.map((s) => s.name).join(', ')}
  --quick        every scenario, small (capped at 15 minutes)
  --only         run just these scenarios
  --out          output folder (default bench-results/<timestamp>/)
  --concurrency  run slots of the service and worker concurrency of the queue peers alike`;

/** A scenario's own time cap (settings `<name>.budgetSec`, default 60 s). */
function budgetSecOf(settings: Settings, scenario: Scenario): number {
  return (settings[scenario.name as keyof Settings] as { budgetSec?: number } | undefined)?.budgetSec ?? 60;
}

/**
 * The time the first of `upcoming` may take: its own cap while what is left after it still holds
 * half the caps of the scenarios after it (most finish well inside their caps), else the larger
 * of what is left past that half and its share of what is left in proportion to its cap. The caps
 * add up to more than the whole-run budget: without a reserve the scenarios listed last (flows,
 * fairness) were cut whenever the earlier ones used their caps, and a plain proportional share
 * cut the first ones' rounds in runs that ended far inside the budget.
 */
function scenarioBudgetMs(settings: Settings, upcoming: readonly Scenario[], leftMs: number): number {
  const own = budgetSecOf(settings, upcoming[0]!) * 1000;
  const later = upcoming.slice(1).reduce((sum, scenario) => sum + budgetSecOf(settings, scenario) * 1000, 0);
  const share = leftMs * (own / (own + later));
  return Math.max(0, Math.min(own, Math.max(share, leftMs - later / 2)));
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-');
}

async function main(): Promise<number> {
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (err) {
    console.error(`${errorMessage(err)}\n${USAGE}`);
    return 2;
  }
  if (args.help) {
    console.log(USAGE);
    return 0;
  }
  const selected = args.only ? SCENARIOS.filter((s) => args.only!.includes(s.name)) : SCENARIOS;
  const unknown = (args.only ?? []).filter((name) => !SCENARIOS.some((s) => s.name === name));
  if (unknown.length) {
    console.error(`unknown scenario(s): ${unknown.join(', ')}\n${USAGE}`);
    return 2;
  }

  const mode = args.quick ? 'quick' : 'full';
  const base: Settings = args.quick ? QUICK : FULL;
  const settings: Settings =
    args.concurrency === null
      ? base
      : { ...base, concurrency: args.concurrency, e2e: { ...base.e2e, concurrency: args.concurrency }, flows: { ...base.flows, concurrency: args.concurrency } };
  const outDir = resolve(args.out ?? join(ROOT, 'bench-results', timestamp()));
  const startedAt = new Date();
  const runDeadline = Date.now() + settings.totalBudgetSec * 1000;
  const log = (message: string) => console.log(`[bench ${((Date.now() - startedAt.getTime()) / 1000).toFixed(1).padStart(6)}s] ${message}`);

  log(`mode ${mode}; scenarios ${selected.map((s) => s.name).join(', ')}; output ${outDir}`);
  const machine: Record<string, unknown> = { ...machineInfo(), serviceBuilt: serviceBuilt() };
  const fs = machine.stateFilesystem as { type: string | null; mountPoint: string | null } | undefined;
  log(`state folders under ${String(machine.stateDir)} on ${fs?.type ?? 'unknown'} (${fs?.mountPoint ?? '?'}); ${String(machine.nproc)} cores`);
  const fault = benchFault();
  if (fault) log(`BENCH_FAULT=${fault}: a deliberately broken run; its checks must fail`);
  if (!serviceBuilt()) log('service entry dist/src/main.js not built: service rows are reported as skipped');

  const results: ScenarioResult[] = [];
  for (const [index, scenario] of selected.entries()) {
    const deadline = Date.now() + scenarioBudgetMs(settings, selected.slice(index), runDeadline - Date.now());
    const rows = new RowSink(scenario.name);
    const ctx: ScenarioContext = {
      mode,
      settings,
      rows,
      details: {},
      deadline,
      remainingMs: () => Math.max(0, deadline - Date.now()),
      log: (m) => log(`${scenario.name}: ${m}`),
    };
    const t0 = Date.now();
    log(`${scenario.name}: ${scenario.title}`);
    const result: ScenarioResult = { name: scenario.name, title: scenario.title, rows: rows.rows, comparisons: rows.comparisons, details: ctx.details, durationMs: 0 };
    if (Date.now() >= runDeadline) {
      rows.skip('all', '-', 'run time budget spent');
    } else {
      try {
        await scenario.run(ctx);
      } catch (err) {
        result.error = String(err instanceof Error ? (err.stack ?? err.message) : err);
        rows.add({ subject: 'scenario', metric: '-', unit: '', value: null, note: `error: ${errorMessage(err)}` });
        log(`${scenario.name}: failed: ${errorMessage(err)}`);
      } finally {
        // Whatever a scenario left registered (services, peers, queues, temp dirs) goes now.
        await runCleanups();
      }
    }
    result.durationMs = Date.now() - t0;
    results.push(result);
    log(`${scenario.name}: done in ${(result.durationMs / 1000).toFixed(1)} s`);
  }

  const allRows: Row[] = results.flatMap((r) => r.rows);
  const text = textTable(allRows);
  const md = markdownTable(allRows);
  const verdicts = judgeGoals(results);
  const report: RunReport = {
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    mode,
    only: args.only,
    outDir,
    machine: { ...machine, fault, loadAverageAtEnd: loadavg().map((n) => Number(n.toFixed(2))) },
    scenarios: results,
    verdicts,
  };
  const written = writeReport(report, text, md);
  console.log(`\n${text}\n`);
  if (verdicts.length) console.log(`Goals, judged on the median of alternated rounds (bench/lib/verdict.ts):\n${verdictTable(verdicts)}\n`);
  log(`wrote ${written.length} files to ${outDir}; docs/performance.md from them: npm run bench:doc -- ${join(outDir, 'results.json')}`);
  const failed = results.filter((r) => r.error || r.rows.some((row) => row.failed || row.note?.startsWith('error:')));
  if (failed.length) {
    const checks = allRows.filter((row) => row.failed).map((row) => `${row.scenario}/${row.subject}: ${row.metric} ${row.note ?? ''}`);
    log(`errors in: ${failed.map((r) => r.name).join(', ')}`);
    for (const line of checks) log(`  ${line}`);
  }
  return failed.length ? 1 : 0;
}

let interrupted = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    console.error(`\n${signal}: stopping spawned processes and removing temp data`);
    void runCleanups().finally(() => process.exit(130));
  });
}
// A run that never finished must not look like a success: if the event loop empties while a
// scenario still waits (a promise nothing will settle), Node exits with this code.
process.exitCode = 1;
process.on('exit', (code) => {
  if (code === 1 && !finished) console.error('bench: the run ended before it finished (the event loop emptied while a scenario waited)');
});
let finished = false;
main()
  .then(async (code) => {
    finished = true;
    await runCleanups();
    process.exit(code);
  })
  .catch(async (err) => {
    finished = true;
    console.error(err);
    await runCleanups();
    process.exit(1);
  });
