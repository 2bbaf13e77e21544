import type { Logger } from 'pino';
import { MemoryCoordination } from './memory.js';
import { RedisCoordination } from './redis.js';
import { describeRedisUrl } from './redis-url.js';
import type { Coordination } from './types.js';

export interface CoordinationOptions {
  /** Prefix of every Redis key (default `orch:`). */
  keyPrefix?: string;
  /** Bounds of the in-memory response cache (used whenever the memory driver is). */
  cacheMaxEntries?: number;
  cacheMaxBytes?: number;
  /** How long start-up waits for the KV store (default 1.5 s). */
  connectTimeoutMs?: number;
}

export const DEFAULT_KEY_PREFIX = 'orch:';
const DEFAULT_CONNECT_TIMEOUT_MS = 1500;

/**
 * Picks the coordination driver. No KV_STORE_URL: in-process memory. A URL: Redis, unless it cannot
 * be reached within the connect timeout, in which case the service still starts on memory and
 * reports itself degraded: start-up never fails for lack of the store.
 */
export async function createCoordination(
  kvStoreUrl: string | null,
  logger: Logger,
  options: CoordinationOptions = {},
): Promise<Coordination> {
  const cache = {
    cacheMaxEntries: options.cacheMaxEntries ?? 2000,
    cacheMaxBytes: options.cacheMaxBytes ?? 32 * 1024 * 1024,
  };
  if (!kvStoreUrl) return new MemoryCoordination(cache);

  const target = describeRedisUrl(kvStoreUrl);
  try {
    const redis = await RedisCoordination.connect(kvStoreUrl, logger, {
      keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    });
    logger.info({ kvStore: target }, 'coordination uses the kv store');
    return redis;
  } catch (err) {
    const cause = err instanceof Error ? err.message : String(err);
    logger.warn({ kvStore: target, cause }, 'kv store unreachable at start-up; falling back to in-memory coordination');
    return new MemoryCoordination({
      ...cache,
      status: {
        store: 'memory',
        status: 'degraded',
        redisConfigured: true,
        redisReachable: false,
        detail: `${target} was unreachable at start-up (${cause}); using in-process memory coordination`,
      },
    });
  }
}
