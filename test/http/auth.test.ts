import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${h.url}${path}`, { headers });

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  const body = await readJson(res);
  expect(body.error.code).toBe('unauthorized');
  expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
  return body;
}

describe('bearer authentication', () => {
  it('refuses a request without an Authorization header', async () => {
    await expectUnauthorized(await get('/api/auth/me'));
  });

  it('refuses a malformed Authorization header', async () => {
    await expectUnauthorized(await get('/api/auth/me', { authorization: TEST_KEYS.viewer }));
    await expectUnauthorized(await get('/api/auth/me', { authorization: `Basic ${TEST_KEYS.viewer}` }));
    await expectUnauthorized(await get('/api/auth/me', { authorization: 'Bearer ' }));
  });

  it('refuses an unknown key, an expired key and an inactive key alike', async () => {
    const messages = new Set<string>();
    for (const key of ['not-a-configured-key-123', TEST_KEYS.expired, TEST_KEYS.inactive]) {
      const body = await expectUnauthorized(await get('/api/auth/me', bearer(key)));
      messages.add(body.error.message);
    }
    expect(messages.size).toBe(1);
  });

  it('does not echo the presented key in the refusal', async () => {
    const res = await get('/api/auth/me', bearer(TEST_KEYS.expired));
    expect(await res.text()).not.toContain(TEST_KEYS.expired);
  });

  it('answers /api/auth/me for the operator key ops:v2 with actor ops', async () => {
    const res = await get('/api/auth/me', bearer(TEST_KEYS.operator));
    expect(res.status).toBe(200);
    expect(await readJson(res)).toEqual({
      actor: 'ops',
      role: 'operator',
      apiKeyLabel: 'ops:v2',
      apiKeyExpiresAt: null,
      groups: [],
      credential: 'api-key',
      expiresAt: null,
    });
  });

  it('gives the highest of several roles', async () => {
    const res = await get('/api/auth/me', bearer(TEST_KEYS.admin));
    expect(await readJson(res)).toMatchObject({ actor: 'admin-user', role: 'admin', apiKeyLabel: 'admin-user' });
  });

  it('sends X-API-Key-Expires only for a key that expires', async () => {
    const expiring = await get('/api/auth/me', bearer(TEST_KEYS.expiring));
    expect(expiring.status).toBe(200);
    expect(expiring.headers.get('x-api-key-expires')).toBe('2099-01-01T00:00:00.000Z');
    expect((await readJson(expiring)).apiKeyExpiresAt).toBe('2099-01-01T00:00:00.000Z');
    const lasting = await get('/api/auth/me', bearer(TEST_KEYS.viewer));
    expect(lasting.headers.get('x-api-key-expires')).toBeNull();
  });
});

describe('roles (viewer < operator < admin)', () => {
  const cases: Array<[string, string, keyof typeof TEST_KEYS, number]> = [
    ['GET', '/test/notes', 'viewer', 200],
    ['GET', '/test/notes', 'operator', 200],
    ['GET', '/test/notes', 'admin', 200],
    ['POST', '/test/notes', 'viewer', 403],
    ['POST', '/test/notes', 'operator', 201],
    ['POST', '/test/notes', 'admin', 201],
    ['GET', '/test/export', 'viewer', 403],
    ['GET', '/test/export', 'operator', 403],
    ['GET', '/test/export', 'admin', 200],
  ];
  it.each(cases)('%s %s with the %s key answers %i', async (method, path, role, status) => {
    const res = await fetch(`${h.url}${path}`, {
      method,
      headers: { ...bearer(TEST_KEYS[role]), ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify({ text: 'hello' }) : undefined,
    });
    expect(res.status).toBe(status);
    if (status === 403) expect((await readJson(res)).error.code).toBe('forbidden');
  });

  it('checks the role before reading the body: a viewer posting an invalid body gets 403, not 400', async () => {
    const res = await fetch(`${h.url}/test/notes`, {
      method: 'POST',
      headers: { ...bearer(TEST_KEYS.viewer), 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(res.status).toBe(403);
  });

  it('authenticates before validating: no key and an invalid body gets 401', async () => {
    const res = await fetch(`${h.url}/test/notes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ wrong: true }),
    });
    expect(res.status).toBe(401);
  });
});
