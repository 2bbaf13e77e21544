/**
 * Shared coordination between instances: leased locks, windowed counters, dedupe sets and the
 * response-cache key-value space. The memory driver serves one process; the Redis driver
 * (KV_STORE_URL) makes the same guarantees hold across instances.
 */
export interface CoordinationStatus {
  store: 'memory' | 'kvstore';
  status: 'ok' | 'degraded';
  redisConfigured: boolean;
  redisReachable: boolean;
  detail: string;
}

export interface Coordination {
  readonly kind: 'memory' | 'kvstore';
  status(): Promise<CoordinationStatus>;

  /** Takes the lock when free or expired; true when `ownerId` now holds it for `ttlMs`. */
  acquireLock(name: string, ownerId: string, ttlMs: number): Promise<boolean>;
  /** Extends a lock still held by `ownerId`; false when it was lost. */
  renewLock(name: string, ownerId: string, ttlMs: number): Promise<boolean>;
  releaseLock(name: string, ownerId: string): Promise<void>;
  /**
   * Takes the lock as acquireLock does and returns its fencing token, or null when another owner
   * holds it. Every new grant of a lock name gets a larger token than any before it (also across
   * a KV store outage: tokens are at least the current time in ms), and re-acquiring a lock one
   * holds keeps its token. The holder hands the token to whatever it writes under the lock, which
   * refuses a token lower than one it has seen: an owner whose lease expired cannot write over
   * the next owner's work.
   */
  acquireFencedLock(name: string, ownerId: string, ttlMs: number): Promise<number | null>;

  /** Increments a counter in a fixed window; returns the new count and when the window ends (epoch ms). */
  incrementWindow(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
  /** Adds `member` to a dedupe set whose members expire after `ttlMs`; true when it was not there. */
  addUnique(set: string, member: string, ttlMs: number): Promise<boolean>;
  /**
   * Adds `amount` to a budget's spend for `day` (the caller's calendar day, e.g. `2026-05-01`)
   * only when the day's total stays within `limit`; atomic, so instances sharing the store never
   * overspend together. Days are kept two days, then forgotten.
   */
  spendDailyBudget(budget: string, day: string, amount: number, limit: number): Promise<{ admitted: boolean; spent: number }>;

  /** Cached values are bytes: a hit is written to the socket as it is, with no encoding step. */
  cacheGet(key: string): Promise<Buffer | null>;
  cacheSet(key: string, value: Buffer, ttlSeconds: number): Promise<void>;
  /** Current generation of each tag (0 when never bumped). Cache keys embed them. */
  tagVersions(tags: string[]): Promise<number[]>;
  /** Invalidates every cached entry carrying any of `tags` by bumping their generation. */
  bumpTags(tags: string[]): Promise<void>;

  close(): Promise<void>;
}
