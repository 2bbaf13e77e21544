import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { FailoverCoordination } from '../../src/coordination/failover.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { coordinationConformance } from './conformance.js';
import { deleteKeysWithPrefix, keyExists } from '../support/redis.js';

const url = process.env.TEST_REDIS_URL;
const logger = pino({ level: 'silent' });
const memory = () => new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1024 * 1024 });

describe.skipIf(!url)('FailoverCoordination over a reachable Redis (needs TEST_REDIS_URL)', () => {
  const keyPrefix = `orch-test-failover-${randomUUID()}:`;
  coordinationConformance('FailoverCoordination conformance', {
    kind: 'kvstore',
    create: async () =>
      new FailoverCoordination(await RedisCoordination.connect(url!, logger, { keyPrefix, connectTimeoutMs: 1500 }), memory, 'redis', logger),
    createWithTagRetention: async (ms) =>
      new FailoverCoordination(
        await RedisCoordination.connect(url!, logger, { keyPrefix, connectTimeoutMs: 1500, tagRetentionMs: ms }),
        memory,
        'redis',
        logger,
      ),
    cleanup: () => deleteKeysWithPrefix(url!, keyPrefix),
    holdsTag: (_, tag) => keyExists(url!, `${keyPrefix}tag:${tag}`),
  });
});

describe('FailoverCoordination while Redis is unreachable', () => {
  let coordination: FailoverCoordination | null = null;
  afterEach(async () => {
    await coordination?.close();
  });

  it('serves every call from memory and reports the degradation', async () => {
    // Port 1 on loopback refuses connections: the background client never becomes ready.
    const redis = RedisCoordination.connectInBackground('redis://127.0.0.1:1', logger, { keyPrefix: 'x:', connectTimeoutMs: 200 });
    coordination = new FailoverCoordination(redis, memory, 'redis://127.0.0.1:1', logger);
    expect(coordination.kind).toBe('memory');
    expect(await coordination.acquireLock('l', 'a', 10_000)).toBe(true);
    expect(await coordination.acquireLock('l', 'b', 10_000)).toBe(false);
    expect((await coordination.incrementWindow('w', 60_000)).count).toBe(1);
    expect((await coordination.incrementWindow('w', 60_000)).count).toBe(2);
    expect(await coordination.addUnique('s', 'm', 10_000)).toBe(true);
    expect(await coordination.addUnique('s', 'm', 10_000)).toBe(false);
    await coordination.cacheSet('k', Buffer.from('v'), 30);
    expect((await coordination.cacheGet('k'))?.toString()).toBe('v');
    const status = await coordination.status();
    expect(status).toMatchObject({ store: 'memory', status: 'degraded', redisConfigured: true, redisReachable: false });
    expect(status.detail).toMatch(/not answering since .*in-process memory/);
  });
});
