/**
 * The business scheduler's cadence read as a time: the next cron slot after a given moment.
 * Starting a cycle, switching the scheduler on, the scheduled slot and the scheduler's read model
 * all report when the next automatic slot falls, and compute it here from the configured pattern.
 */

import { Cron } from 'croner';

/** The next cron slot after `from`, or null when the pattern has none. */
export function nextSlot(cron: string, from: Date): string | null {
  const job = new Cron(cron, { paused: true });
  try {
    return job.nextRun(from)?.toISOString() ?? null;
  } finally {
    job.stop();
  }
}
