import type { Logger } from 'pino';
import { FailoverCoordination } from './failover.js';
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
 * Picks the coordination driver. No KV_STORE_URL: in-process memory. A URL: Redis behind the
 * failover (see failover.ts): whenever Redis cannot be reached (at start-up or later) calls are
 * served from memory and status() reports the degradation; start-up never fails for lack of the
 * store, and Redis is used again as soon as it answers.
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
  const redisOptions = {
    keyPrefix: options.keyPrefix ?? DEFAULT_KEY_PREFIX,
    connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
  };
  const memory = () => new MemoryCoordination(cache);
  try {
    const redis = await RedisCoordination.connect(kvStoreUrl, logger, redisOptions);
    logger.info({ kvStore: target }, 'coordination uses the kv store');
    return new FailoverCoordination(redis, memory, target, logger);
  } catch (err) {
    const cause = err instanceof Error ? err.message : String(err);
    logger.warn({ kvStore: target, cause }, 'kv store unreachable at start-up; falling back to in-memory coordination until it answers');
    return new FailoverCoordination(RedisCoordination.connectInBackground(kvStoreUrl, logger, redisOptions), memory, target, logger);
  }
}
