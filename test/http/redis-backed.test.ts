import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCoordination } from '../../src/coordination/redis.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { deleteKeysWithPrefix } from '../support/redis.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

const url = process.env.TEST_REDIS_URL;

describe.skipIf(!url)('HTTP envelope on the Redis KV store (needs TEST_REDIS_URL)', () => {
  const keyPrefix = `orch-test-http-${randomUUID()}:`;
  const coordinations: RedisCoordination[] = [];
  let a: Harness;
  let b: Harness;

  const connect = async () => {
    const c = await RedisCoordination.connect(url!, pino({ level: 'silent' }), { keyPrefix, connectTimeoutMs: 1500 });
    coordinations.push(c);
    return c;
  };

  beforeAll(async () => {
    const configFile = { rateLimits: { 'viewer-read': { max: 4, windowSeconds: 60 } } };
    a = await startHarness({ configFile, coordination: await connect() });
    b = await startHarness({ configFile, coordination: await connect() });
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    for (const c of coordinations) await c.close();
    await deleteKeysWithPrefix(url!, keyPrefix);
  });

  it('reports the kv store as the cache store and serves hits across instances', async () => {
    const first = await fetch(`${a.url}/test/public-counter?shared=1`);
    expect(first.headers.get('x-svc-cache-store')).toBe('kvstore');
    expect(first.headers.get('x-svc-cache')).toBe('miss');
    const fromOther = await fetch(`${b.url}/test/public-counter?shared=1`);
    expect(fromOther.headers.get('x-svc-cache')).toBe('hit');
    expect(await readJson(fromOther)).toEqual(await readJson(first));
  });

  it('invalidates across instances: a write on one makes the other miss', async () => {
    await fetch(`${b.url}/test/notes`, { headers: bearer(TEST_KEYS.admin) });
    expect((await fetch(`${b.url}/test/notes`, { headers: bearer(TEST_KEYS.admin) })).headers.get('x-svc-cache')).toBe('hit');
    const write = await fetch(`${a.url}/test/notes`, {
      method: 'POST',
      headers: { ...bearer(TEST_KEYS.operator), 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'from a' }),
    });
    expect(write.status).toBe(201);
    expect((await fetch(`${b.url}/test/notes`, { headers: bearer(TEST_KEYS.admin) })).headers.get('x-svc-cache')).toBe('miss');
  });

  it('shares rate-limit counters between instances', async () => {
    const statuses: number[] = [];
    for (const h of [a, b, a, b, a]) {
      const res = await fetch(`${h.url}/api/auth/me`, { headers: bearer(TEST_KEYS.viewer) });
      statuses.push(res.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    const limited = await fetch(`${b.url}/api/auth/me`, { headers: bearer(TEST_KEYS.viewer) });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('reports the kv store in persistence health', async () => {
    const body = await readJson(await fetch(`${a.url}/api/persistence/health`));
    expect(body.coordination).toMatchObject({ store: 'kvstore', status: 'ok', redisConfigured: true, redisReachable: true });
  });
});
