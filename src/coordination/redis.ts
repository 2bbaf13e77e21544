import type * as ioredis from 'ioredis';
import type { Redis } from 'ioredis';
import { lazyPackage } from '../common/lazy-package.js';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import { describeRedisUrl } from './redis-url.js';
import { TAG_RETENTION_MS, clampCacheTtl } from './tag-generations.js';
import type { Coordination, CoordinationStatus } from './types.js';

/** The client library, loaded when a KV store is configured (a start without one never loads it). */
const loadIoredis = lazyPackage<typeof ioredis>('ioredis');

export interface RedisCoordinationOptions {
  /** Prefix of every key this service writes, so several deployments can share one Redis. */
  keyPrefix: string;
  /** How long start-up waits for the first connection before giving up. */
  connectTimeoutMs: number;
  /** How long a cache tag is remembered after its last bump or creation (tag-generations.ts). */
  tagRetentionMs?: number;
}

/** Extends the lock only while `owner` still holds it. */
const RENEW_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0`;

/** Deletes the lock only while `owner` still holds it, so a late release cannot free someone else's lock. */
const RELEASE_LOCK = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0`;

/**
 * Takes the lock (free, expired, or already ours) and returns its fencing token: kept when we
 * already held it, else max(last token + 1, now ms), so tokens only grow, across outages too.
 * -1 when another owner holds the lock.
 */
const ACQUIRE_FENCED_LOCK = `
local holder = redis.call('GET', KEYS[1])
if holder and holder ~= ARGV[1] then return -1 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
local last = tonumber(redis.call('GET', KEYS[2]) or '0')
if holder == ARGV[1] and last > 0 then return last end
local token = math.max(last + 1, tonumber(ARGV[3]))
redis.call('SET', KEYS[2], string.format('%d', token), 'PX', ARGV[4])
return token`;

/** Adds ARGV[1] to the day's spend when it stays within ARGV[2]; returns {admitted, spend as text}. */
const SPEND_DAILY_BUDGET = `
local spent = tonumber(redis.call('GET', KEYS[1]) or '0')
if spent + tonumber(ARGV[1]) > tonumber(ARGV[2]) then return {0, tostring(spent)} end
local total = redis.call('INCRBYFLOAT', KEYS[1], ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, total}`;

/** How long a lock's last fencing token and a day's budget spend are kept. */
const FENCE_RETENTION_MS = 7 * 24 * 3600_000;
const BUDGET_RETENTION_MS = 2 * 24 * 3600_000;

/** Fixed window: INCR, and start the window's expiry on its first hit (or if it somehow has none). */
const INCREMENT_WINDOW = `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if count == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

/** Redis's own clock in ms: every instance bumps and creates tags against the same time. */
const SERVER_NOW_MS = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

/** Sets each present tag to max(current + 1, now ms) with a retention expiry, and leaves absent ones absent; see tag-generations.ts for why. */
const BUMP_TAGS = `${SERVER_NOW_MS}
for i, key in ipairs(KEYS) do
  local current = redis.call('GET', key)
  if current then
    local nextValue = math.max(tonumber(current) + 1, now)
    redis.call('SET', key, string.format('%d', nextValue), 'PX', ARGV[1])
  end
end
return #KEYS`;

/** Reads each tag, creating the absent ones at now ms (see tag-generations.ts for why). */
const READ_OR_CREATE_TAGS = `${SERVER_NOW_MS}
local values = {}
for i, key in ipairs(KEYS) do
  local value = redis.call('GET', key)
  if not value then
    value = string.format('%d', now)
    redis.call('SET', key, value, 'PX', ARGV[1])
  end
  values[i] = value
end
return values`;

/** How long status() waits for a PING before calling the store unreachable. */
const PING_TIMEOUT_MS = 1000;
/** How long any one command may take before it counts as failed. */
const COMMAND_TIMEOUT_MS = 1000;

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DomainError('unavailable', `${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}


/**
 * Logs a client's connection errors, each message once until another one replaces it (a down
 * store repeats it on every retry), and its return: always (`ready`), or only after an error
 * was logged (`restored`).
 */
function logConnectionEvents(client: Redis, target: string, logger: Logger, ready: 'ready' | 'restored'): void {
  let lastLoggedError: string | null = null;
  client.on('error', (err: Error) => {
    if (err.message === lastLoggedError) return;
    lastLoggedError = err.message;
    logger.warn({ kvStore: target, cause: err.message }, 'kv store connection error');
  });
  client.on('ready', () => {
    if (ready === 'ready') logger.info({ kvStore: target }, 'kv store connection ready');
    else if (lastLoggedError !== null) logger.info({ kvStore: target }, 'kv store connection restored');
    lastLoggedError = null;
  });
}

/**
 * Coordination shared by every instance pointing at the same Redis (KV_STORE_URL).
 * Commands fail fast while the connection is down (no offline queue), so callers see an error
 * instead of a request hanging until Redis returns.
 */
export class RedisCoordination implements Coordination {
  readonly kind = 'kvstore' as const;
  private readonly target: string;

  private constructor(
    private readonly client: Redis,
    readonly keyPrefix: string,
    url: string,
    private readonly tagRetentionMs: number,
  ) {
    this.target = describeRedisUrl(url);
  }

  /**
   * Connects once, within `connectTimeoutMs`, without retrying: start-up must not sit in a
   * reconnect loop. Once connected, dropped connections are retried with a capped backoff.
   */
  static async connect(url: string, logger: Logger, options: RedisCoordinationOptions): Promise<RedisCoordination> {
    const client = new (loadIoredis().Redis)(url, {
      lazyConnect: true,
      connectTimeout: options.connectTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      // A Redis that accepts the connection but stops answering fails the call, not the request.
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: () => null,
    });
    const target = describeRedisUrl(url);
    logConnectionEvents(client, target, logger, 'restored');
    try {
      await withTimeout(client.connect(), options.connectTimeoutMs, `connecting to ${target}`);
    } catch (err) {
      client.disconnect();
      throw err;
    }
    client.options.retryStrategy = (attempt: number) => Math.min(attempt * 200, 2000);
    return new RedisCoordination(client, options.keyPrefix, url, options.tagRetentionMs ?? TAG_RETENTION_MS);
  }

  /**
   * A driver whose first connection is still to come: the client keeps trying in the
   * background (capped backoff) and the caller uses another store until `isReady()`.
   */
  static connectInBackground(url: string, logger: Logger, options: RedisCoordinationOptions): RedisCoordination {
    const client = new (loadIoredis().Redis)(url, {
      connectTimeout: options.connectTimeoutMs,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: COMMAND_TIMEOUT_MS,
      retryStrategy: (attempt: number) => Math.min(attempt * 200, 2000),
    });
    const target = describeRedisUrl(url);
    logConnectionEvents(client, target, logger, 'ready');
    return new RedisCoordination(client, options.keyPrefix, url, options.tagRetentionMs ?? TAG_RETENTION_MS);
  }

  /** True while commands can be sent (connected and ready). */
  isReady(): boolean {
    return this.client.status === 'ready';
  }

  /** The connected client, shared with the rate limiter so its counters live in the same store. */
  redisClient(): Redis {
    return this.client;
  }

  async status(): Promise<CoordinationStatus> {
    const reachable = await this.ping();
    return {
      store: 'kvstore',
      status: reachable ? 'ok' : 'degraded',
      redisConfigured: true,
      redisReachable: reachable,
      detail: reachable
        ? `shared coordination in ${this.target}`
        : `${this.target} is not answering; coordination calls fail until it returns`,
    };
  }

  async acquireLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    const key = this.key('lock', name);
    if ((await this.client.set(key, ownerId, 'PX', ttlMs, 'NX')) === 'OK') return true;
    // Re-acquiring a lock one already holds refreshes it, as the memory driver does.
    return (await this.client.eval(RENEW_LOCK, 1, key, ownerId, ttlMs)) === 1;
  }

  async renewLock(name: string, ownerId: string, ttlMs: number): Promise<boolean> {
    return (await this.client.eval(RENEW_LOCK, 1, this.key('lock', name), ownerId, ttlMs)) === 1;
  }

  async releaseLock(name: string, ownerId: string): Promise<void> {
    await this.client.eval(RELEASE_LOCK, 1, this.key('lock', name), ownerId);
  }

  async acquireFencedLock(name: string, ownerId: string, ttlMs: number): Promise<number | null> {
    const token = (await this.client.eval(
      ACQUIRE_FENCED_LOCK,
      2,
      this.key('lock', name),
      this.key('fence', name),
      ownerId,
      ttlMs,
      Date.now(),
      FENCE_RETENTION_MS,
    )) as number;
    return token < 0 ? null : token;
  }

  async spendDailyBudget(budget: string, day: string, amount: number, limit: number): Promise<{ admitted: boolean; spent: number }> {
    const [admitted, spent] = (await this.client.eval(
      SPEND_DAILY_BUDGET,
      1,
      this.key('budget', `${budget}:${day}`),
      amount,
      limit,
      BUDGET_RETENTION_MS,
    )) as [number, string];
    return { admitted: admitted === 1, spent: Number(spent) };
  }

  async incrementWindow(key: string, windowMs: number): Promise<{ count: number; resetAt: number }> {
    const [count, ttl] = (await this.client.eval(INCREMENT_WINDOW, 1, this.key('window', key), windowMs)) as [
      number,
      number,
    ];
    return { count, resetAt: Date.now() + ttl };
  }

  async addUnique(set: string, member: string, ttlMs: number): Promise<boolean> {
    return (await this.client.set(this.key('dedupe', `${set}:${member}`), '1', 'PX', ttlMs, 'NX')) === 'OK';
  }

  async cacheGet(key: string): Promise<Buffer | null> {
    return this.client.getBuffer(this.key('cache', key));
  }

  async cacheSet(key: string, value: Buffer, ttlSeconds: number): Promise<void> {
    const ttl = clampCacheTtl(ttlSeconds);
    if (ttl === 0) return;
    await this.client.set(this.key('cache', key), value, 'EX', ttl);
  }

  async tagVersions(tags: string[]): Promise<number[]> {
    if (tags.length === 0) return [];
    const keys = tags.map((tag) => this.key('tag', tag));
    // The common case is a read: every tag exists. Only absent ones need the script that creates them.
    const values = await this.client.mget(keys);
    const absent = values.flatMap((value, i) => (value === null ? [i] : []));
    if (absent.length > 0) {
      const created = (await this.client.eval(READ_OR_CREATE_TAGS, absent.length, ...absent.map((i) => keys[i]!), this.tagRetentionMs)) as string[];
      absent.forEach((index, j) => (values[index] = created[j]!));
    }
    return values.map(Number);
  }

  async bumpTags(tags: string[]): Promise<void> {
    const unique = [...new Set(tags)];
    if (unique.length === 0) return;
    const keys = unique.map((tag) => this.key('tag', tag));
    await this.client.eval(BUMP_TAGS, keys.length, ...keys, this.tagRetentionMs);
  }

  async close(): Promise<void> {
    try {
      await withTimeout(this.client.quit(), PING_TIMEOUT_MS, 'closing the kv store connection');
    } catch {
      this.client.disconnect();
    }
  }

  private key(space: 'lock' | 'fence' | 'budget' | 'window' | 'dedupe' | 'cache' | 'tag', name: string): string {
    return `${this.keyPrefix}${space}:${name}`;
  }

  private async ping(): Promise<boolean> {
    if (this.client.status !== 'ready') return false;
    try {
      return (await withTimeout(this.client.ping(), PING_TIMEOUT_MS, 'kv store ping')) === 'PONG';
    } catch {
      return false;
    }
  }
}
