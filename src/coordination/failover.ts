import type { Logger } from 'pino';
import { CacheTags } from '../domain/cache-invalidation.js';
import type { MemoryCoordination } from './memory.js';
import type { RedisCoordination } from './redis.js';
import type { Coordination, CoordinationStatus } from './types.js';

/**
 * The coordination of a service configured with KV_STORE_URL. Every call goes to Redis while
 * it is connected; while it is not (down at start-up, or lost later), calls are served by an
 * in-process memory coordination and status() reports the degradation. When Redis returns it
 * is used again at once.
 *
 * While on memory, guarantees hold per instance only (locks, dedupe, limits), which is the
 * documented degraded mode. Two things keep the switch back safe for cached reads:
 * - tags invalidated during the outage are invalidated in Redis on return, so no instance
 *   serves a Redis entry written before a change made meanwhile;
 * - each outage starts from an empty memory store, so nothing cached during an earlier outage
 *   (and never invalidated since) can be served.
 */
export class FailoverCoordination implements Coordination {
  private memory: MemoryCoordination | null = null;
  private readonly tagsBumpedWhileDown = new Set<string>();
  private downSince: Date | null = null;

  constructor(
    private readonly redis: RedisCoordination,
    private readonly makeMemory: () => MemoryCoordination,
    private readonly target: string,
    private readonly logger: Logger,
  ) {}

  /** Where calls go right now (the response cache reports it in X-Svc-Cache-Store). */
  get kind(): 'memory' | 'kvstore' {
    return this.redis.isReady() ? 'kvstore' : 'memory';
  }

  async status(): Promise<CoordinationStatus> {
    const redis = await this.redis.status();
    if (redis.redisReachable) return redis;
    return {
      store: 'memory',
      status: 'degraded',
      redisConfigured: true,
      redisReachable: false,
      detail:
        `${this.target} is not answering${this.downSince ? ` since ${this.downSince.toISOString()}` : ''}; ` +
        'serving on in-process memory coordination (limits, locks and dedupe per instance) until it returns',
    };
  }

  acquireLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    return this.call((c) => c.acquireLock(name, ownerId, ttlMs));
  }

  renewLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    return this.call((c) => c.renewLock(name, ownerId, ttlMs));
  }

  releaseLock(name: string, ownerId: string): Promise<void> {
    return this.call((c) => c.releaseLock(name, ownerId));
  }

  acquireFencedLock(name: string, ownerId: string, ttlMs: number): Promise<number | null> {
    return this.call((c) => c.acquireFencedLock(name, ownerId, ttlMs));
  }

  spendDailyBudget(budget: string, day: string, amount: number, limit: number): Promise<{ admitted: boolean; spent: number }> {
    return this.call((c) => c.spendDailyBudget(budget, day, amount, limit));
  }

  incrementWindow(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    return this.call((c) => c.incrementWindow(key, windowMs));
  }

  addUnique(set: string, member: string, ttlMs: number): Promise<boolean> {
    return this.call((c) => c.addUnique(set, member, ttlMs));
  }

  cacheGet(key: string): Promise<Buffer | null> {
    return this.call((c) => c.cacheGet(key));
  }

  cacheSet(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    return this.call((c) => c.cacheSet(key, value, ttlSeconds));
  }

  tagVersions(tags: string[]): Promise<number[]> {
    return this.call((c) => c.tagVersions(tags));
  }

  bumpTags(tags: string[]): Promise<void> {
    return this.call(
      (c) => c.bumpTags(tags),
      () => tags.forEach((tag) => this.tagsBumpedWhileDown.add(tag)),
    );
  }

  async close(): Promise<void> {
    await this.memory?.close();
    await this.redis.close();
  }

  private async call<T>(work: (c: Coordination) => Promise<T>, onMemory?: () => void): Promise<T> {
    if (this.redis.isReady()) {
      try {
        await this.recovered();
        return await work(this.redis);
      } catch (err) {
        this.wentDown(err);
      }
    } else {
      this.wentDown(null);
    }
    onMemory?.();
    return work(this.memoryStore());
  }

  private memoryStore(): MemoryCoordination {
    this.memory ??= this.makeMemory();
    return this.memory;
  }

  private wentDown(err: unknown): void {
    if (this.downSince !== null) return;
    this.downSince = new Date();
    this.logger.warn(
      { kvStore: this.target, cause: err instanceof Error ? err.message : 'not connected' },
      'kv store unavailable; coordination falls back to in-process memory',
    );
  }

  /** First call after an outage: replay its invalidations in Redis, and forget the outage's memory. */
  private async recovered(): Promise<void> {
    if (this.downSince === null) return;
    // Persistence health changed twice meanwhile (degraded, then back): no instance may serve an older answer.
    await this.redis.bumpTags([...this.tagsBumpedWhileDown, CacheTags.persistence]);
    this.tagsBumpedWhileDown.clear();
    const memory = this.memory;
    this.memory = null;
    await memory?.close();
    this.logger.info({ kvStore: this.target, outageStartedAt: this.downSince.toISOString() }, 'kv store is back; coordination uses it again');
    this.downSince = null;
  }
}
