import type { AppConfig } from '../config/types.js';
import { slotRunId } from '../scheduler/scheduler.js';
import type { StateStore } from '../store/types.js';
import { latestFireTime, nextFireTimes, type CronSpec } from './cron-expression.js';
import type { ScheduleView } from './schedule-record.js';
import { businessValueCycleType } from '../lanes/business-value-cycle/definition.js';
import { taskTypes } from '../runtime/catalog.js';
import { placementOf } from '../domain/run-record.js';

/**
 * The service's own schedules (src/scheduler/scheduler.ts), shown beside the user schedules so
 * an operator sees everything that fires. They come from config and are changed there, never
 * through the schedules API.
 */
interface BuiltInSchedule {
  id: string;
  cron: string;
  type: string;
  enabled: boolean;
  /** The run id a firing at `at` gets, when the slot is named by one (null: the business cycle names its own). */
  runIdAt: ((at: Date) => string) | null;
}

/** The business gate's slot: the one built-in schedule not named after the type it fires. */
const BUSINESS_CYCLE_SCHEDULE_ID = 'business-cycle';

/** The built-in schedules' ids: each type whose module declares a built-in schedule, and the business slot. */
export function builtInScheduleIds(): string[] {
  return [...taskTypes().scheduled().map((t) => t.type), BUSINESS_CYCLE_SCHEDULE_ID];
}

export const isBuiltInSchedule = (id: string): boolean => builtInScheduleIds().includes(id);

/** croner reads a job without a time zone in the process's zone: the built-ins' zone. */
const processTimeZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

export type BuiltInConfig = Pick<AppConfig, 'heartbeatCron' | 'nightlyBatchCron' | 'businessCycleCron' | 'schedulerEnabled'>;

function builtIns(config: BuiltInConfig): BuiltInSchedule[] {
  return [
    // Named after its type, on the cron of the config setting its module names.
    ...taskTypes()
      .scheduled()
      .map((t) => ({
        id: t.type,
        cron: config[t.builtInSchedule!.cronSetting],
        type: t.type,
        enabled: config.schedulerEnabled,
        runIdAt: (at: Date) => slotRunId(t.type, at),
      })),
    // The slot evaluates the business gate (src/business/service.ts), which admits this type when due.
    { id: BUSINESS_CYCLE_SCHEDULE_ID, cron: config.businessCycleCron, type: businessValueCycleType.type, enabled: config.schedulerEnabled, runIdAt: null },
  ];
}

/** A built-in's times; a config cron this view cannot read (croner's seven fields) lists none rather than failing the list. */
function safely<T>(compute: () => T, fallback: T): T {
  try {
    return compute();
  } catch {
    return fallback;
  }
}

/** The built-in schedules as views; `lastRunId` is the run of the latest slot when that run exists. */
export async function builtInScheduleViews(config: BuiltInConfig, store: StateStore, now: Date): Promise<ScheduleView[]> {
  return Promise.all(
    builtIns(config).map(async (schedule): Promise<ScheduleView> => {
      const spec: CronSpec = { cron: schedule.cron, timezone: processTimeZone() };
      const latest = schedule.enabled ? safely(() => latestFireTime(spec, now), null) : null;
      const latestRun = latest !== null && schedule.runIdAt !== null ? await store.getRun(schedule.runIdAt(latest)) : null;
      return {
        id: schedule.id,
        builtIn: true,
        cron: schedule.cron,
        timezone: spec.timezone,
        type: schedule.type,
        payload: {},
        flow: null,
        enabled: schedule.enabled,
        // Each slot is one run id per minute: a second firing in the slot is a duplicate, never a second run.
        overlap: 'allow',
        catchUp: 'skip',
        ...placementOf({}),
        tags: [],
        nextRunAt: schedule.enabled ? safely(() => nextFireTimes(spec, now, 5), []).map((d) => d.toISOString()) : [],
        lastRunId: latestRun?.runId ?? null,
        lastFiredAt: latestRun && latest ? latest.toISOString() : null,
        lastCatchUp: false,
        lastSkippedAt: null,
        lastSkipReason: null,
        lastSkip: null,
        requesters: [],
        createdAt: null,
        updatedAt: null,
        createdBy: null,
        updatedBy: null,
      };
    }),
  );
}
