import { Cron } from 'croner';
import type { ErrorDetail } from '../domain/errors.js';

/**
 * A schedule's timing: a cron expression read in an IANA time zone. Everything about cron goes
 * through croner (parsing, next and previous times, daylight-saving gaps and repeats), so the
 * times a schedule lists as `nextRunAt` are the times its timer fires.
 */
export interface CronSpec {
  cron: string;
  timezone: string;
}

export const DEFAULT_TIMEZONE = 'UTC';

/** Five fields (minute first) or six (second first): what a schedule's `cron` may hold. */
const FIELD_COUNTS = new Set([5, 6]);

/** Whether `timezone` is an IANA zone this Node.js knows (`UTC`, `Europe/Berlin`, ...). */
export function isTimeZone(timezone: string): boolean {
  if (timezone.trim() === '' || timezone !== timezone.trim()) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone });
    return true;
  } catch {
    return false;
  }
}

/** croner's job for the spec, used for calculations only (no callback: it schedules nothing). */
function jobOf(spec: CronSpec): Cron {
  return new Cron(spec.cron, { mode: '5-or-6-parts', timezone: spec.timezone });
}

/** croner's message without its class prefix ("CronPattern: ..."), for a client's detail. */
function cronerReason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/^Cron\w*:\s*/, '');
}

/**
 * The problems of a cron expression and time zone, empty when both are usable. `paths` are the
 * JSON pointers the details name (the route passes `/body/cron` and `/body/timezone`). A
 * pattern that can never fire (31 February) is refused too: its schedule would list no time.
 */
export function cronProblems(spec: CronSpec, paths: { cron: string; timezone: string }, now: Date): ErrorDetail[] {
  const problems: ErrorDetail[] = [];
  const fields = spec.cron.trim().split(/\s+/).filter((f) => f !== '');
  const zoneOk = isTimeZone(spec.timezone);
  if (!zoneOk) problems.push({ path: paths.timezone, message: `'${spec.timezone}' is not an IANA time zone (for example UTC or Europe/Berlin)` });
  if (!FIELD_COUNTS.has(fields.length)) {
    problems.push({
      path: paths.cron,
      message: `has ${fields.length} field${fields.length === 1 ? '' : 's'}; a cron expression has five (minute hour day month weekday) or six (second first)`,
    });
    return problems;
  }
  let job: Cron;
  try {
    job = jobOf({ cron: spec.cron, timezone: zoneOk ? spec.timezone : DEFAULT_TIMEZONE });
  } catch (err) {
    problems.push({ path: paths.cron, message: `is not a valid cron expression: ${cronerReason(err)}` });
    return problems;
  }
  if (zoneOk && job.nextRun(now) === null) problems.push({ path: paths.cron, message: 'never fires (no date matches it)' });
  return problems;
}

/** The next `count` fire times strictly after `after`. */
export function nextFireTimes(spec: CronSpec, after: Date, count: number): Date[] {
  return jobOf(spec).nextRuns(count, after);
}

/** The first fire time strictly after `after`, or null when there is none. */
export function nextFireTime(spec: CronSpec, after: Date): Date | null {
  return jobOf(spec).nextRun(after);
}

/** The latest fire time at or before `atOrBefore`, or null when there is none. */
export function latestFireTime(spec: CronSpec, atOrBefore: Date): Date | null {
  // croner's previousRuns excludes its reference: one millisecond later includes a fire time at `atOrBefore` itself.
  const [latest] = jobOf(spec).previousRuns(1, new Date(atOrBefore.getTime() + 1));
  return latest ?? null;
}
