import type { RunRecord, RunStatus } from '../domain/run-record.js';
import { latestFireTime, type CronSpec } from './cron-expression.js';
import type { CatchUpPolicy, OverlapPolicy } from './schedule-record.js';

/**
 * The two decisions of a firing, pure so they are tested without timers: is a tick due now (and
 * is it on time or a catch-up), and what does the overlap policy do with a previous run still
 * going. The timer (schedule-timer.ts) only carries them out.
 */

/**
 * How late a tick may be and still count as on time. The timer wakes at the fire time, so a tick
 * later than this was missed: the service was down, or stalled, when it fell due.
 */
export const MISFIRE_GRACE_MS = 5000;

export type DueFiring =
  | { kind: 'none' }
  /** Admit the tick `fireAt`; `catchUp` when it was missed and catchUp `once` runs it now. */
  | { kind: 'fire'; fireAt: Date; catchUp: boolean }
  /** The tick was missed and catchUp `skip` drops it. */
  | { kind: 'missed'; fireAt: Date };

export interface DueInput {
  spec: CronSpec;
  catchUp: CatchUpPolicy;
  /** Fire times at or before the latest of these are decided already (or before the schedule's time). */
  decidedThrough: ReadonlyArray<Date | null>;
  now: Date;
  graceMs?: number;
}

/**
 * The tick due at `now`: the latest fire time at or before `now` that is after everything already
 * decided. Only that one tick is ever considered, so a long downtime yields at most one firing
 * (catchUp `once`), never a burst; earlier missed ticks are dropped in both modes.
 */
export function dueFiring(input: DueInput): DueFiring {
  const latest = latestFireTime(input.spec, input.now);
  if (latest === null) return { kind: 'none' };
  const decided = Math.max(...input.decidedThrough.map((d) => d?.getTime() ?? Number.NEGATIVE_INFINITY));
  if (latest.getTime() <= decided) return { kind: 'none' };
  const lateness = input.now.getTime() - latest.getTime();
  if (lateness <= (input.graceMs ?? MISFIRE_GRACE_MS)) return { kind: 'fire', fireAt: latest, catchUp: false };
  return input.catchUp === 'once' ? { kind: 'fire', fireAt: latest, catchUp: true } : { kind: 'missed', fireAt: latest };
}

/** Statuses of a run that is not finished: it still counts as the schedule's running previous run. */
const UNFINISHED: ReadonlySet<RunStatus> = new Set<RunStatus>(['pending', 'running', 'retrying']);

export const isUnfinished = (run: Pick<RunRecord, 'status'>): boolean => UNFINISHED.has(run.status);

export type OverlapAction = { kind: 'admit' } | { kind: 'skip'; reason: string } | { kind: 'cancel-previous'; previousRunId: string };

/** What `overlap` does with the schedule's previous run (null when there is none, or it is gone). */
export function overlapAction(policy: OverlapPolicy, previous: Pick<RunRecord, 'runId' | 'status'> | null): OverlapAction {
  if (previous === null || !isUnfinished(previous) || policy === 'allow') return { kind: 'admit' };
  if (policy === 'skip') return { kind: 'skip', reason: `overlap: the previous run ${previous.runId} is still ${previous.status}` };
  return { kind: 'cancel-previous', previousRunId: previous.runId };
}
