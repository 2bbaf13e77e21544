import cronstrue from 'cronstrue';
import { cronProblems, nextFireTimes } from '../../../src/schedules/cron-expression.js';

/**
 * A cron expression checked as it is typed, by the service's own rules (the same module, run in
 * the browser: croner), and put in words.
 */
export interface CronCheck {
  problems: { field: 'cron' | 'timezone'; message: string }[];
  words: string | null;
  next: Date[];
}

/** "At 02:00 AM" → "every day at 02:00 (UTC)": cronstrue's words with the zone the cron is read in. */
export function describeCron(cron: string, timezone: string): string | null {
  try {
    const words = cronstrue.toString(cron, { use24HourTimeFormat: true, verbose: false, throwExceptionOnParseError: true });
    return `${words} (${timezone})`;
  } catch {
    return null;
  }
}

export function checkCron(cron: string, timezone: string, now: Date = new Date()): CronCheck {
  const problems = cronProblems({ cron, timezone }, { cron: 'cron', timezone: 'timezone' }, now).map((p) => ({
    field: p.path as 'cron' | 'timezone',
    message: p.message,
  }));
  if (problems.length > 0) return { problems, words: null, next: [] };
  return { problems, words: describeCron(cron, timezone), next: nextFireTimes({ cron, timezone }, now, 3) };
}
