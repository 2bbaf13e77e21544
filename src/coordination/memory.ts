import { LRUCache } from 'lru-cache';
import { ExpiringMap } from './expiring-map.js';
import { TAG_RETENTION_MS, clampCacheTtl, monotonicNowMs, nextGeneration } from './tag-generations.js';
import type { Coordination, CoordinationStatus } from './types.js';

export interface MemoryCoordinationOptions {
  /** Bounds of the response cache: it never holds more entries or bytes than these. */
  cacheMaxEntries: number;
  cacheMaxBytes: number;
  /** What status() reports; defaults to a healthy, unconfigured memory store. */
  status?: CoordinationStatus;
  /** How long a cache tag is remembered after its last bump or creation (tag-generations.ts). */
  tagRetentionMs?: number;
}

/** How long a lock's last fencing token is remembered after its grant (tokens are time-based beyond it). */
const FENCE_RETENTION_MS = 7 * 24 * 3600_000;
/** A day's budget spend is kept two days, so a day boundary in any time zone finds it. */
const BUDGET_RETENTION_MS = 2 * 24 * 3600_000;

/** How often expired locks, windows, dedupe members and forgotten tags are dropped. */
const SWEEP_INTERVAL_MS = 30_000;

const DEFAULT_STATUS: CoordinationStatus = {
  store: 'memory',
  status: 'ok',
  redisConfigured: false,
  redisReachable: false,
  detail: 'in-process memory coordination (no KV_STORE_URL configured)',
};

/**
 * Coordination for a single process. Guarantees hold only inside this process; with several
 * instances use the Redis driver. Every structure is bounded: the cache by entries and bytes, the
 * others by expiry plus a periodic sweep.
 */
export class MemoryCoordination implements Coordination {
  readonly kind = 'memory' as const;
  private readonly locks = new ExpiringMap<string>();
  private readonly windows = new ExpiringMap<number>();
  private readonly dedupe = new ExpiringMap<true>();
  private readonly tags = new ExpiringMap<number>();
  private readonly fences = new ExpiringMap<number>();
  private readonly budgets = new ExpiringMap<number>();
  private readonly cache: LRUCache<string, Buffer>;
  private readonly reportedStatus: CoordinationStatus;
  private readonly tagRetentionMs: number;
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryCoordinationOptions) {
    this.cache = new LRUCache<string, Buffer>({
      max: options.cacheMaxEntries,
      maxSize: options.cacheMaxBytes,
      sizeCalculation: (value, key) => value.length + Buffer.byteLength(key),
    });
    this.reportedStatus = options.status ?? DEFAULT_STATUS;
    this.tagRetentionMs = options.tagRetentionMs ?? TAG_RETENTION_MS;
    this.sweeper = setInterval(() => this.sweepExpired(), SWEEP_INTERVAL_MS);
    // The sweep is housekeeping; it must not keep a finished process alive.
    this.sweeper.unref();
  }

  async status(): Promise<CoordinationStatus> {
    return { ...this.reportedStatus };
  }

  async acquireLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const holder = this.locks.get(name, now);
    if (holder !== undefined && holder !== ownerId) return false;
    this.locks.set(name, ownerId, now + ttlMs);
    return true;
  }

  async renewLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    if (this.locks.get(name, now) !== ownerId) return false;
    this.locks.set(name, ownerId, now + ttlMs);
    return true;
  }

  async releaseLock(name: string, ownerId: string): Promise<void> {
    if (this.locks.get(name, Date.now()) === ownerId) this.locks.delete(name);
  }

  async acquireFencedLock(name: string, ownerId: string, ttlMs: number): Promise<number | null> {
    const now = Date.now();
    const holder = this.locks.get(name, now);
    if (holder !== undefined && holder !== ownerId) return null;
    this.locks.set(name, ownerId, now + ttlMs);
    const current = this.fences.get(name, now);
    if (holder === ownerId && current !== undefined) return current;
    const token = Math.max((current ?? 0) + 1, now);
    this.fences.set(name, token, now + FENCE_RETENTION_MS);
    return token;
  }

  async spendDailyBudget(budget: string, day: string, amount: number, limit: number): Promise<{ admitted: boolean; spent: number }> {
    const now = Date.now();
    const key = `${budget}\u0000${day}`;
    const spent = this.budgets.get(key, now) ?? 0;
    if (spent + amount > limit) return { admitted: false, spent };
    this.budgets.set(key, spent + amount, now + BUDGET_RETENTION_MS);
    return { admitted: true, spent: spent + amount };
  }

  async incrementWindow(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const now = Date.now();
    const count = (this.windows.get(key, now) ?? 0) + 1;
    const resetAt = this.windows.expiresAt(key, now) ?? now + windowMs;
    this.windows.set(key, count, resetAt);
    return { count, resetAt };
  }

  async addUnique(set: string, member: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const key = `${set}\u0000${member}`;
    if (this.dedupe.get(key, now) !== undefined) return false;
    this.dedupe.set(key, true, now + ttlMs);
    return true;
  }

  async cacheGet(key: string): Promise<Buffer | null> {
    return this.cache.get(key) ?? null;
  }

  async cacheSet(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    const ttl = clampCacheTtl(ttlSeconds);
    if (ttl === 0) return;
    // An entry larger than the whole budget is refused by the LRU itself (nothing is stored).
    this.cache.set(key, value, { ttl: ttl * 1000 });
  }

  async tagVersions(tags: string[]): Promise<number[]> {
    const now = monotonicNowMs();
    return tags.map((tag) => {
      const current = this.tags.get(tag, now);
      if (current !== undefined) return current;
      // Created on read: see tag-generations.ts for why an absent tag has no fixed value.
      this.tags.set(tag, now, now + this.tagRetentionMs);
      return now;
    });
  }

  async bumpTags(tags: string[]): Promise<void> {
    const now = monotonicNowMs();
    for (const tag of new Set(tags)) {
      // An absent tag keys no entry: it is left absent (tag-generations.ts, "bumps of absent tags").
      const current = this.tags.get(tag, now);
      if (current !== undefined) this.tags.set(tag, nextGeneration(current, now), now + this.tagRetentionMs);
    }
  }

  /** Whether `tag` is remembered right now (not expired); for tests and diagnostics. */
  holdsTag(tag: string): boolean {
    return this.tags.get(tag, monotonicNowMs()) !== undefined;
  }

  /** Tags remembered right now (expired ones not yet swept included); for tests and diagnostics. */
  get tagCount(): number {
    return this.tags.size;
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    this.cache.clear();
  }

  /** Drops every expired lock, window, dedupe member and tag now (the timer does it every 30 s). */
  sweepExpired(): void {
    const now = Date.now();
    this.locks.sweep(now);
    this.windows.sweep(now);
    this.dedupe.sweep(now);
    this.tags.sweep(monotonicNowMs());
    this.fences.sweep(now);
    this.budgets.sweep(now);
  }
}
