import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ configFile: { cache: { publicMaxAgeSeconds: 30, protectedMaxAgeSeconds: 15 } } });
});
afterAll(async () => {
  await h.close();
});

const get = (path: string, key?: string) => fetch(`${h.url}${path}`, { headers: key ? bearer(key) : {} });
const addNote = (text: string) =>
  fetch(`${h.url}/test/notes`, {
    method: 'POST',
    headers: { ...bearer(TEST_KEYS.operator), 'content-type': 'application/json' },
    body: JSON.stringify({ text }),
  });

describe('response cache', () => {
  it('misses, then hits, and a write invalidates before it answers', async () => {
    const first = await get('/test/notes', TEST_KEYS.viewer);
    expect(first.headers.get('x-svc-cache')).toBe('miss');
    expect(first.headers.get('x-svc-cache-store')).toBe('memory');
    const before = await readJson(first);

    const second = await get('/test/notes', TEST_KEYS.viewer);
    expect(second.headers.get('x-svc-cache')).toBe('hit');
    expect(await readJson(second)).toEqual(before);

    expect((await addNote('after the first read')).status).toBe(201);

    const third = await get('/test/notes', TEST_KEYS.viewer);
    expect(third.headers.get('x-svc-cache')).toBe('miss');
    const after = await readJson(third);
    expect(after.count).toBe(before.count + 1);
    expect(after.notes).toContain('after the first read');
    expect((await get('/test/notes', TEST_KEYS.viewer)).headers.get('x-svc-cache')).toBe('hit');
  });

  it('keeps a separate entry per role (an admin never gets a viewer’s cached answer, or the reverse)', async () => {
    await get('/test/notes', TEST_KEYS.viewer);
    expect((await get('/test/notes', TEST_KEYS.viewer)).headers.get('x-svc-cache')).toBe('hit');
    expect((await get('/test/notes', TEST_KEYS.admin)).headers.get('x-svc-cache')).toBe('miss');
    // Two viewers (different actors, same role) share the entry.
    expect((await get('/test/notes', TEST_KEYS.expiring)).headers.get('x-svc-cache')).toBe('hit');
  });

  it('marks protected cached reads private with Vary: Authorization', async () => {
    const res = await get('/test/notes', TEST_KEYS.viewer);
    expect(res.headers.get('cache-control')).toBe('private, max-age=15');
    expect(res.headers.get('vary')).toMatch(/Authorization/);
  });

  it('marks public cached reads public with the configured max-age, or the route’s own', async () => {
    const openapi = await get('/api/openapi.json');
    expect(openapi.headers.get('cache-control')).toBe('public, max-age=30');
    expect(openapi.headers.get('vary') ?? '').not.toMatch(/Authorization/);
    const persistence = await get('/api/persistence/health');
    expect(persistence.headers.get('cache-control')).toBe('public, max-age=30');
    const counter = await get('/test/public-counter');
    expect(counter.headers.get('cache-control')).toBe('public, max-age=12');
  });

  it('does not run the handler on a hit, and keys by query string', async () => {
    const a = await readJson(await get('/test/public-counter?x=1'));
    const b = await readJson(await get('/test/public-counter?x=1'));
    const c = await readJson(await get('/test/public-counter?x=2'));
    expect(b.handlerRuns).toBe(a.handlerRuns);
    expect(c.handlerRuns).toBe(a.handlerRuns + 1);
  });

  it('marks routes without caching no-store and sends no cache headers on them', async () => {
    const me = await get('/api/auth/me', TEST_KEYS.viewer);
    expect(me.headers.get('cache-control')).toBe('no-store');
    expect(me.headers.get('x-svc-cache')).toBeNull();
    expect((await get('/health')).headers.get('cache-control')).toBe('no-store');
  });

  it('never caches an error answer', async () => {
    const denied = await get('/test/notes');
    expect(denied.status).toBe(401);
    expect(denied.headers.get('cache-control')).toBe('no-store');
    expect(denied.headers.get('x-svc-cache')).toBeNull();
    expect(denied.headers.get('x-svc-cache-store')).toBeNull();
  });

  it('keys a cached POST read by its body', async () => {
    const search = async (query: string) => {
      const res = await fetch(`${h.url}/test/search`, {
        method: 'POST',
        headers: { ...bearer(TEST_KEYS.operator), 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return { cache: res.headers.get('x-svc-cache'), body: await readJson(res) };
    };
    const first = await search('alpha');
    const again = await search('alpha');
    const other = await search('beta');
    expect([first.cache, again.cache, other.cache]).toEqual(['miss', 'hit', 'miss']);
    expect(again.body).toEqual(first.body);
    expect(other.body).toEqual({ query: 'beta', handlerRuns: first.body.handlerRuns + 1 });
  });
});
