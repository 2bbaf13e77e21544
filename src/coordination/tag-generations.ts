/**
 * Rules shared by both drivers for cache-tag generations.
 *
 * Writers bump a tag for every record they touch (`run:<id>` included), so tag keys would grow
 * without bound if they were kept forever. They are therefore forgotten some time after their last
 * bump. That is safe only if (a) no cached entry outlives the forgotten tag, and (b) a generation
 * never repeats: a bump sets the tag to max(current + 1, now in ms), so a tag re-created after
 * being forgotten starts above every value it held before, and an entry keyed by an old
 * generation can never match again.
 */

/** Longest time a response-cache entry may live; longer TTLs are clamped. */
export const MAX_CACHE_TTL_SECONDS = 3600;

/** How long a tag generation is remembered after its last bump; must exceed MAX_CACHE_TTL_SECONDS. */
export const TAG_RETENTION_MS = 2 * MAX_CACHE_TTL_SECONDS * 1000;

export function nextGeneration(current: number, nowMs: number): number {
  return Math.max(current + 1, nowMs);
}

export function clampCacheTtl(ttlSeconds: number): number {
  return Math.min(Math.max(Math.floor(ttlSeconds), 0), MAX_CACHE_TTL_SECONDS);
}
