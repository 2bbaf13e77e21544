/**
 * Rules shared by both drivers for cache-tag generations.
 *
 * Writers bump a tag for every record they touch (`run:<id>` included), so tag keys would grow
 * with every run ever written if they were kept forever. They are therefore forgotten
 * `TAG_RETENTION_MS` after their last bump or creation. Forgetting is safe at any moment because a
 * tag never reads as a value it held before:
 * - a tag that is read while absent is created on that read, at the current time in ms (there is
 *   no shared "never bumped" value that an entry could be keyed on and meet again after the tag
 *   was bumped and forgotten);
 * - a bump sets the tag to max(current + 1, now in ms), so a tag re-created after being forgotten
 *   starts at or above the time of its re-creation, beyond every value it held before.
 * An entry keyed by an old generation can therefore never match again, whatever its TTL. The
 * retention bounds memory (tags of the last few minutes of reads, and of writes to what was read),
 * not correctness; a cached entry whose tag is forgotten is missed once and stored again under
 * the new generation.
 *
 * Bumps of absent tags: a bump leaves an absent tag absent. No entry can be keyed by it: an entry
 * is keyed by the generations its reader read before computing it, which created the tag, and a
 * tag forgotten since comes back beyond all its old values. A reader that creates the tag after
 * the bump reads the data after the write the bump follows. So a run's own tag (`run:<id>`) is
 * only kept while somebody reads that run: writes alone do not hold one tag per run written in
 * the last two minutes, each promoted to the old generation and marked there by the collector.
 *
 * "now" comes from one clock per store: Redis's `TIME` for the shared driver (every instance
 * bumps against the same clock, so skew between instances cannot repeat a value) and the
 * process's monotonic clock for the in-memory driver.
 */

/** Longest time a response-cache entry may live; longer TTLs are clamped. */
export const MAX_CACHE_TTL_SECONDS = 3600;

/**
 * How long a tag is remembered after its last bump or creation. Two minutes is four times the
 * longest default TTL (30 s), so a default entry is rarely cut short, while a run's tag is dropped
 * two minutes after the run's last read or a write after it. A tag costs about 600 bytes of heap in
 * the in-memory driver: at most 120,000 tags (70 MiB) even if 1,000 distinct runs were read each
 * second and written after.
 */
export const TAG_RETENTION_MS = 2 * 60 * 1000;

export function nextGeneration(current: number, nowMs: number): number {
  return Math.max(current + 1, nowMs);
}

/** Milliseconds since the epoch that never go backwards within this process (the wall clock may). */
export function monotonicNowMs(): number {
  return Math.floor(performance.timeOrigin + performance.now());
}

export function clampCacheTtl(ttlSeconds: number): number {
  return Math.min(Math.max(Math.floor(ttlSeconds), 0), MAX_CACHE_TTL_SECONDS);
}
