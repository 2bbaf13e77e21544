import { ApiError } from './errors.js';

const MAX_RATE_LIMITED_RETRIES = 3;

/**
 * Which failed reads are tried again: 429 is flow control (up to three times, after Retry-After),
 * a network failure or 5xx once; any other 4xx is the service's answer and stays.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status === 429) return failureCount < MAX_RATE_LIMITED_RETRIES;
  if (error instanceof ApiError && error.status < 500) return false;
  return failureCount < 1;
}

/** Wait before the next try: Retry-After first (else ratelimit-reset's 1 s floor), then a little jitter. */
export function retryDelayMs(failureCount: number, error: unknown, random: () => number = Math.random): number {
  const jitter = Math.floor(random() * 500);
  if (error instanceof ApiError && error.status === 429) return (error.retryAfterSeconds ?? 1) * 1000 + jitter;
  return Math.min(1000 * 2 ** failureCount, 8000) + jitter;
}

/** A polling interval with up to 20 % jitter, so many open consoles do not poll in step. */
export function jittered(intervalMs: number, random: () => number = Math.random): number {
  return Math.round(intervalMs * (1 + random() * 0.2));
}
