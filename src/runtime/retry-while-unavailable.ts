import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';

/** How long an attempt's final write keeps trying while the store is away, and how often. */
export interface UnavailableRetry {
  /** Give up after this long (the run is then left to lease recovery). */
  maxMs: number;
  firstDelayMs: number;
  maxDelayMs: number;
}

export const FINAL_WRITE_RETRY: UnavailableRetry = { maxMs: 10 * 60_000, firstDelayMs: 100, maxDelayMs: 2000 };

const isUnavailable = (err: unknown) => err instanceof DomainError && err.code === 'unavailable';

/**
 * Repeats `write` while it fails because the store is unreachable (code `unavailable`), with
 * backoff, up to `retry.maxMs`; any other error, or the last `unavailable`, is thrown. Only for
 * writes that are safe to repeat: a guarded compare-and-set whose first try did not commit.
 * Why: an attempt whose outcome cannot be written while the database restarts would otherwise
 * stay `running` until its lease runs out and be executed again by lease recovery.
 */
export async function retryWhileUnavailable<T>(write: () => Promise<T>, logger: Logger, context: Record<string, unknown>, retry: UnavailableRetry = FINAL_WRITE_RETRY): Promise<T> {
  const deadline = Date.now() + retry.maxMs;
  let delay = retry.firstDelayMs;
  for (let tries = 1; ; tries++) {
    try {
      return await write();
    } catch (err) {
      if (!isUnavailable(err) || Date.now() + delay > deadline) throw err;
      if (tries === 1) logger.warn({ ...context, cause: (err as Error).message }, 'store unavailable: retrying the final write');
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(retry.maxDelayMs, delay * 2);
    }
  }
}
