import { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import { CacheTags, runListPruneTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { freshShared } from '../domain/fresh-share.js';
import { PRUNABLE_STATUSES } from '../store/run-rules.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../runtime/admission.js';
import { taskTypes } from '../runtime/catalog.js';

export interface SchedulerDeps {
  config: AppConfig;
  clock: Clock;
  logger: Logger;
  store: StateStore;
  admit: Admit;
  admitDueRetries: () => Promise<number>;
  /** Pruning deletes runs: the reads that listed or counted them are dropped. */
  invalidator: CacheInvalidator;
  /** One automatic business slot (src/business/service.ts evaluateSchedule); it decides skip or start itself. */
  businessCycle?: () => Promise<unknown>;
  /** Called after a retention pass that deleted runs: what belongs to them goes too (their run logs). */
  afterPrune?: () => Promise<unknown>;
}

const RETRY_SCAN_INTERVAL_MS = 1000;
const RETENTION_INTERVAL_MS = 10_000;

/**
 * Finished runs (seen by this instance) after which retention runs without waiting for its
 * timer: a tenth of `runRetention`, at least 100. At thousands of runs a second, ten seconds of
 * runs were several times the retention, held in memory by the file store until the next pass.
 */
export function retentionSlack(runRetention: number): number {
  return Math.max(100, Math.floor(runRetention / 10));
}

/**
 * Run id of one slot of a type's built-in schedule, `<type>:<minute>`: every instance firing the
 * same slot hits the same admission key. Each such prefix is one of the service's own
 * (src/domain/service-run-ids.ts), which no client's idempotency key may use.
 */
export function slotRunId(type: string, at: Date): string {
  const minute = new Date(Math.floor(at.getTime() / 60_000) * 60_000);
  return `${type}:${minute.toISOString()}`;
}

/**
 * Cron-driven work (the types with a built-in schedule, the business slot) plus the retry scanner and run retention. Scheduled
 * tasks enter through the same admission function as HTTP triggers, with the scheduler as actor.
 */
export interface Scheduler {
  /** Starts the cron jobs, the retry scan and retention. */
  start(): void;
  /** Called for every run this instance finishes: retention runs early once enough have. */
  noteRunFinished(): void;
  stop(): void;
}

/**
 * The scheduler, built before the runtime that tells it of finished runs and started once the
 * runtime has recovered: nothing runs until `start`.
 */
export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { config, logger } = deps;
  const admitSlot = async (type: string) => {
    try {
      const outcome = await deps.admit({
        type,
        payload: {},
        source: 'scheduler',
        requestedBy: 'scheduler',
        forceRunId: slotRunId(type, deps.clock.now()),
      });
      logger.debug({ type, runId: outcome.run.runId, outcome: outcome.kind }, 'scheduled task admitted');
    } catch (err) {
      logger.error({ err, type }, 'scheduled admission failed');
    }
  };
  const guarded = (name: string, fn: () => Promise<unknown>) => () => {
    fn().catch((err: unknown) => logger.error({ err }, `${name} failed`));
  };

  let jobs: Cron[] = [];
  let timers: NodeJS.Timeout[] = [];
  let started = false;
  const cronJobs = (): Cron[] =>
    config.schedulerEnabled
      ? [
          // The types whose modules declare a built-in schedule, each on the cron its config setting holds.
          ...taskTypes()
            .scheduled()
            .map((t) => new Cron(config[t.builtInSchedule!.cronSetting], { name: t.type, protect: true }, () => admitSlot(t.type))),
          ...(deps.businessCycle
            ? [new Cron(config.businessCycleCron, { name: 'business-cycle', protect: true }, guarded('business cycle slot', deps.businessCycle))]
            : []),
        ]
      : [];
  const pruneOnce = async () => {
    const removed = await deps.store.pruneRuns(config.runRetention);
    if (removed === 0) return;
    await deps.invalidator.invalidate([CacheTags.runs, ...runListPruneTags(PRUNABLE_STATUSES)]);
    logger.info({ removed }, 'pruned runs beyond retention');
    await deps.afterPrune?.();
  };
  let finishedSincePrune = 0;
  let stopped = false;
  // One pass at a time; the requests made while one runs share one more pass after it.
  const pruneRuns = freshShared(async () => {
    // Runs finishing during shutdown must not start a pass on a store about to close.
    if (stopped) return;
    finishedSincePrune = 0;
    await pruneOnce().catch((err: unknown) => logger.error({ err }, 'run retention failed'));
  });
  const slack = retentionSlack(config.runRetention);
  return {
    start() {
      if (started || stopped) return;
      started = true;
      // Cron jobs can be switched off (schedulerEnabled: false); retries and retention always run.
      jobs = cronJobs();
      timers = [
        setInterval(guarded('retry scan', deps.admitDueRetries), RETRY_SCAN_INTERVAL_MS),
        setInterval(() => void pruneRuns(), RETENTION_INTERVAL_MS),
      ];
      void pruneRuns();
    },
    noteRunFinished() {
      finishedSincePrune += 1;
      if (finishedSincePrune >= slack) void pruneRuns();
    },
    stop() {
      stopped = true;
      for (const job of jobs) job.stop();
      for (const t of timers) clearInterval(t);
    },
  };
}
