import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

const ALLOWED = 'https://console.example.test';
const DENIED = 'https://evil.example.test';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ configFile: { corsAllowedOrigins: [ALLOWED, '*'], corsMaxAgeSeconds: 600 } });
});
afterAll(async () => {
  await h.close();
});

const preflight = (origin: string, method = 'POST', path = '/test/notes') =>
  fetch(`${h.url}${path}`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': 'authorization, content-type' },
  });

describe('CORS', () => {
  it('answers an allowed origin with its own origin echoed (never a wildcard) and the exposed headers', async () => {
    const res = await fetch(`${h.url}/api/auth/me`, { headers: { origin: ALLOWED, ...bearer(TEST_KEYS.expiring) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    const exposed = res.headers.get('access-control-expose-headers')!.toLowerCase();
    for (const name of ['x-request-id', 'x-api-key-expires', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset', 'retry-after']) {
      expect(exposed).toContain(name);
    }
    expect(res.headers.get('vary')).toMatch(/origin/i);
  });

  it('refuses an origin outside the allowlist with 403 origin_not_allowed, even with a valid key', async () => {
    const res = await fetch(`${h.url}/api/auth/me`, { headers: { origin: DENIED, ...bearer(TEST_KEYS.admin) } });
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    const body = await readJson(res);
    expect(body.error.code).toBe('origin_not_allowed');
    expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('refuses a disallowed origin on public routes too', async () => {
    const res = await fetch(`${h.url}/health`, { headers: { origin: DENIED } });
    expect(res.status).toBe(403);
  });

  it('answers a preflight from an allowed origin with the configured methods, headers and max age', async () => {
    const res = await preflight(ALLOWED);
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(ALLOWED);
    expect(res.headers.get('access-control-allow-methods')).toBe('GET, POST, OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe('Authorization, Content-Type');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('x-request-id')).not.toBeNull();
  });

  it('refuses a preflight from a disallowed origin with 403', async () => {
    const res = await preflight(DENIED);
    expect(res.status).toBe(403);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect((await readJson(res)).error.code).toBe('origin_not_allowed');
  });

  it('never treats a configured `*` as a wildcard', async () => {
    const res = await fetch(`${h.url}/health`, { headers: { origin: 'https://any.example.test' } });
    expect(res.status).toBe(403);
  });

  it('always allows the service’s own origin (the console it serves)', async () => {
    const own = h.url;
    const res = await fetch(`${h.url}/api/auth/me`, { headers: { origin: own, ...bearer(TEST_KEYS.viewer) } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(own);
    expect((await preflight(own)).status).toBe(204);
  });

  it('does not apply CORS to a request without Origin, but still says the answer varies by Origin', async () => {
    const res = await fetch(`${h.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-expose-headers')).toBeNull();
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('answers OPTIONS without Origin as an unknown route (404), not as a preflight', async () => {
    const res = await fetch(`${h.url}/test/notes`, { method: 'OPTIONS' });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
    expect((await readJson(res)).error.code).toBe('not_found');
  });

  it('keeps Vary: Authorization and Origin together on a protected cached read', async () => {
    const res = await fetch(`${h.url}/test/notes`, { headers: { origin: ALLOWED, ...bearer(TEST_KEYS.viewer) } });
    await res.arrayBuffer();
    const vary = (res.headers.get('vary') ?? '').split(',').map((v) => v.trim().toLowerCase());
    expect(vary).toEqual(expect.arrayContaining(['origin', 'authorization']));
  });
});

describe('CORS with credentials configured', () => {
  let c: Harness;
  beforeAll(async () => {
    c = await startHarness({ configFile: { corsAllowedOrigins: [ALLOWED], corsAllowCredentials: true } });
  });
  afterAll(async () => {
    await c.close();
  });

  it('sends Access-Control-Allow-Credentials only when configured, and no max age unless configured', async () => {
    const res = await fetch(`${c.url}/test/notes`, {
      method: 'OPTIONS',
      headers: { origin: ALLOWED, 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-max-age')).toBeNull();
  });
});
