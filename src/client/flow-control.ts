/**
 * How long to wait before trying again after a 429, from the answer's headers: `Retry-After`
 * (seconds or an HTTP date), else `ratelimit-reset` (seconds), else `fallbackMs`; with up to
 * 20% jitter so clients that were refused together do not come back together.
 */
export function waitAfterRateLimit(headers: Headers, now: number, random: () => number, fallbackMs = 1000): number {
  const base = retryAfterMs(headers.get('retry-after'), now) ?? secondsMs(headers.get('ratelimit-reset')) ?? fallbackMs;
  return Math.round(base + base * 0.2 * random());
}

function secondsMs(value: string | null): number | null {
  if (value === null || value.trim() === '') return null;
  const seconds = Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : null;
}

function retryAfterMs(value: string | null, now: number): number | null {
  const seconds = secondsMs(value);
  if (seconds !== null) return seconds;
  if (value === null) return null;
  const at = Date.parse(value);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Backoff for a retried idempotent request after a network error or a 502/503/504. */
export function retryBackoffMs(attempt: number, random: () => number): number {
  const base = Math.min(8000, 250 * 2 ** attempt);
  return Math.round(base / 2 + (base / 2) * random());
}
