import { isDeepStrictEqual } from 'node:util';
import type { LimitBucket } from '../domain/limit-bucket.js';

/** What a reload changed, by bucket name (POST /api/limits/reload). */
export interface LimitsChange {
  added: string[];
  removed: string[];
  changed: string[];
  unchanged: string[];
  /** The limits now in force, in config order. */
  limits: LimitBucket[];
}

/**
 * Puts `next` in force in `live`, the one list of limit buckets every reader of this process
 * holds (the runner's claims, the free-slot check at admission, `GET /api/queue`, the metrics):
 * its content is replaced in place, in one synchronous step, so every claim after it counts by
 * the new caps and none sees half of them. Nothing is stored per bucket (the caps count the
 * runs themselves under the claims' lock), so waiting runs are neither lost nor run twice: they
 * wait for the new caps. Each instance holds its own list: a fleet reloads every instance.
 */
export function replaceLimits(live: LimitBucket[], next: readonly LimitBucket[]): LimitsChange {
  const before = new Map(live.map((bucket) => [bucket.name, bucket]));
  const after = new Set(next.map((bucket) => bucket.name));
  const change: LimitsChange = { added: [], removed: [], changed: [], unchanged: [], limits: [...next] };
  for (const bucket of next) {
    const old = before.get(bucket.name);
    if (old === undefined) change.added.push(bucket.name);
    else (isDeepStrictEqual(old, bucket) ? change.unchanged : change.changed).push(bucket.name);
  }
  for (const name of before.keys()) if (!after.has(name)) change.removed.push(name);
  live.splice(0, live.length, ...next);
  return change;
}
