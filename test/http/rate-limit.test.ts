import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { Coordination } from '../../src/coordination/types.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

/** Generous defaults so that only the bucket under test can run out. */
const ROOMY = { max: 1000, windowSeconds: 60 };
const limits = (overrides: Record<string, { max: number; windowSeconds: number }>) => ({
  rateLimits: {
    'health-public': ROOMY,
    'docs-public': ROOMY,
    'abuse-guard': ROOMY,
    'viewer-read': ROOMY,
    'operator-write': ROOMY,
    'admin-export': ROOMY,
    ...overrides,
  },
});

let h: Harness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

interface Call {
  method?: 'GET' | 'POST';
  path: string;
  key?: string;
  body?: unknown;
}

async function call({ method = 'GET', path, key, body }: Call): Promise<Response> {
  const headers: Record<string, string> = key ? bearer(key) : {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await fetch(`${h!.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  await res.arrayBuffer();
  return res;
}

/** Makes `max` allowed calls (checking the countdown headers), then shows the next one is 429. */
async function exhaust(bucketMax: number, request: Call, allowedStatus: number): Promise<Response> {
  for (let i = 1; i <= bucketMax; i++) {
    const res = await call(request);
    expect(res.status).toBe(allowedStatus);
    expect(res.headers.get('ratelimit-limit')).toBe(String(bucketMax));
    expect(res.headers.get('ratelimit-remaining')).toBe(String(bucketMax - i));
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
  }
  const limited = await fetch(`${h!.url}${request.path}`, {
    method: request.method ?? 'GET',
    headers: {
      ...(request.key ? bearer(request.key) : {}),
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: request.body === undefined ? undefined : JSON.stringify(request.body),
  });
  expect(limited.status).toBe(429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(limited.headers.get('ratelimit-limit')).toBe(String(bucketMax));
  expect(limited.headers.get('ratelimit-remaining')).toBe('0');
  expect(limited.headers.get('ratelimit-reset')).toBe(String(retryAfter));
  const body = await readJson(limited);
  expect(body.error.code).toBe('rate_limited');
  expect(body.error.requestId).toBe(limited.headers.get('x-request-id'));
  return limited;
}

describe('rate-limit buckets', () => {
  it('health-public limits GET /health and GET /api/persistence/health together, per IP', async () => {
    h = await startHarness({ configFile: limits({ 'health-public': { max: 3, windowSeconds: 60 } }) });
    await call({ path: '/health' });
    await call({ path: '/api/persistence/health' });
    await call({ path: '/health' });
    const res = await call({ path: '/api/persistence/health' });
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).not.toBeNull();
  });

  it('health-public reaches 429 with Retry-After and ratelimit headers', async () => {
    h = await startHarness({ configFile: limits({ 'health-public': { max: 4, windowSeconds: 60 } }) });
    await exhaust(4, { path: '/health' }, 200);
  });

  it('docs-public limits the OpenAPI document', async () => {
    h = await startHarness({ configFile: limits({ 'docs-public': { max: 3, windowSeconds: 30 } }) });
    const limited = await exhaust(3, { path: '/api/openapi.json' }, 200);
    expect(Number(limited.headers.get('retry-after'))).toBeLessThanOrEqual(30);
  });

  it('abuse-guard limits protected routes per IP before authentication, so key guessing is limited too', async () => {
    h = await startHarness({ configFile: limits({ 'abuse-guard': { max: 5, windowSeconds: 60 } }) });
    for (let i = 0; i < 5; i++) expect((await call({ path: '/api/auth/me', key: `guess-${i}-xxxxxxxx` })).status).toBe(401);
    const limited = await call({ path: '/api/auth/me', key: TEST_KEYS.viewer });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).not.toBeNull();
    // The guard is shared by every protected route and does not touch public ones.
    expect((await call({ path: '/test/export', key: TEST_KEYS.admin })).status).toBe(429);
    expect((await call({ path: '/health' })).status).toBe(200);
  });

  it('abuse-guard reaches 429 with the ratelimit headers', async () => {
    h = await startHarness({ configFile: limits({ 'abuse-guard': { max: 3, windowSeconds: 60 } }) });
    // Answers are 401 (no key) while allowed; the guard's countdown is on them.
    await exhaust(3, { path: '/test/notes' }, 401);
  });

  it('abuse-guard is the limit of signed ingest routes', async () => {
    h = await startHarness({ configFile: limits({ 'abuse-guard': { max: 2, windowSeconds: 60 } }) });
    await exhaust(2, { method: 'POST', path: '/test/ingest', body: { event: 'e' } }, 202);
  });

  it('viewer-read reaches 429 per actor, and another actor keeps its own counter', async () => {
    h = await startHarness({ configFile: limits({ 'viewer-read': { max: 3, windowSeconds: 60 } }) });
    await exhaust(3, { path: '/test/notes', key: TEST_KEYS.viewer }, 200);
    // Same bucket, different route: still limited for this actor.
    expect((await call({ path: '/api/auth/me', key: TEST_KEYS.viewer })).status).toBe(429);
    // A different actor (admin-user) has a fresh counter in the same bucket.
    const other = await call({ path: '/test/notes', key: TEST_KEYS.admin });
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit-remaining')).toBe('2');
  });

  it('operator-write reaches 429 per actor without touching viewer-read', async () => {
    h = await startHarness({ configFile: limits({ 'operator-write': { max: 2, windowSeconds: 60 } }) });
    await exhaust(2, { method: 'POST', path: '/test/notes', key: TEST_KEYS.operator, body: { text: 'n' } }, 201);
    expect((await call({ path: '/test/notes', key: TEST_KEYS.operator })).status).toBe(200);
    expect((await call({ method: 'POST', path: '/test/notes', key: TEST_KEYS.admin, body: { text: 'n' } })).status).toBe(201);
  });

  it('admin-export reaches 429 per actor', async () => {
    h = await startHarness({ configFile: limits({ 'admin-export': { max: 2, windowSeconds: 60 } }) });
    await exhaust(2, { path: '/test/export', key: TEST_KEYS.admin }, 200);
  });

  it('counts a protected request against the abuse guard and then its own bucket, reporting the bucket', async () => {
    h = await startHarness({
      configFile: limits({ 'abuse-guard': { max: 50, windowSeconds: 60 }, 'viewer-read': { max: 7, windowSeconds: 60 } }),
    });
    const res = await call({ path: '/test/notes', key: TEST_KEYS.viewer });
    expect(res.headers.get('ratelimit-limit')).toBe('7');
    expect(res.headers.get('ratelimit-remaining')).toBe('6');
  });
});

/**
 * A coordination that is not the in-process one, so the limiter counts through `incrementWindow`
 * (the path a KV store takes), with that one call replaced.
 */
function sharedCounters(incrementWindow: Coordination['incrementWindow']): Coordination {
  const inner = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  return new Proxy({} as Coordination, {
    get(_target, name: keyof Coordination) {
      if (name === 'incrementWindow') return incrementWindow;
      const value = inner[name];
      return typeof value === 'function' ? value.bind(inner) : value;
    },
  });
}

describe('rate limits counted by a shared store', () => {
  it('answers 429 past the limit from the shared counts', async () => {
    const counts = new Map<string, number>();
    const keys: string[] = [];
    h = await startHarness({
      configFile: limits({ 'health-public': { max: 2, windowSeconds: 60 } }),
      coordination: sharedCounters(async (key) => {
        keys.push(key);
        counts.set(key, (counts.get(key) ?? 0) + 1);
        return { count: counts.get(key)!, resetAt: Date.now() + 30_000 };
      }),
    });
    await exhaust(2, { path: '/health' }, 200);
    expect(keys).toEqual(['ratelimit:health-public|ip:127.0.0.1', 'ratelimit:health-public|ip:127.0.0.1', 'ratelimit:health-public|ip:127.0.0.1']);
  });

  it('lets requests through, without limit headers, while the shared store fails', async () => {
    h = await startHarness({
      configFile: limits({ 'health-public': { max: 1, windowSeconds: 60 } }),
      coordination: sharedCounters(() => Promise.reject(new Error('store unreachable'))),
    });
    for (let i = 0; i < 3; i++) {
      const res = await call({ path: '/health' });
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBeNull();
    }
  });
});
