import type { RetryConfig } from '../config/types.js';
import type { RetryRecovery, RunRecord } from '../domain/run-record.js';

/** Exponential backoff base * 2^(attempt-1), capped at maxDelayMs. */
export function backoffMs(config: RetryConfig, attempt: number): number {
  return Math.min(config.baseDelayMs * 2 ** Math.max(0, attempt - 1), config.maxDelayMs);
}

/**
 * The persisted retry-recovery record for a failed attempt, or null when the run must fail for
 * good: the type is not retryable, the failure is not transient, or the attempts are used up.
 */
export function retryPlanFor(
  run: RunRecord,
  retryable: boolean,
  transient: boolean,
  error: string,
  config: RetryConfig,
  now: Date,
): RetryRecovery | null {
  if (!retryable || !transient || run.attempt >= config.maxAttempts) return null;
  const delay = backoffMs(config, run.attempt);
  return {
    attempt: run.attempt,
    retryLimit: config.maxAttempts,
    backoffMs: delay,
    nextRetryAt: new Date(now.getTime() + delay).toISOString(),
    lastError: error,
  };
}
