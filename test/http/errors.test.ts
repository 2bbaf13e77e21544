import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ logLevel: 'info' });
});
afterAll(async () => {
  await h.close();
});

const postNote = (body: string, contentType = 'application/json') =>
  fetch(`${h.url}/test/notes`, { method: 'POST', headers: { ...bearer(TEST_KEYS.operator), 'content-type': contentType }, body });

/** Every error body has exactly {code, message, requestId, details?} under `error`, and nothing else. */
async function errorOf(res: Response) {
  const body = await readJson(res);
  expect(Object.keys(body)).toEqual(['error']);
  for (const key of Object.keys(body.error)) expect(['code', 'message', 'requestId', 'details']).toContain(key);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.requestId).toBe(res.headers.get('x-request-id'));
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  return body.error as { code: string; message: string; requestId: string; details?: Array<{ path: string; message: string }> };
}

describe('error shapes', () => {
  it('answers an unknown route with 404 not_found', async () => {
    const res = await fetch(`${h.url}/api/no-such-thing?x=1`);
    expect(res.status).toBe(404);
    const error = await errorOf(res);
    expect(error.code).toBe('not_found');
    expect(error.message).toContain('/api/no-such-thing');
  });

  it('answers a known path with a method it does not serve with 405 method_not_allowed and Allow', async () => {
    const res = await fetch(`${h.url}/health`, { method: 'DELETE' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await errorOf(res)).code).toBe('method_not_allowed');
  });

  it('answers a body over maxBodyBytes with 413 payload_too_large', async () => {
    const huge = JSON.stringify({ text: 'x'.repeat(h.config.maxBodyBytes + 10) });
    const res = await postNote(huge);
    expect(res.status).toBe(413);
    expect((await errorOf(res)).code).toBe('payload_too_large');
  });

  it('answers malformed JSON with 400 invalid_request', async () => {
    const res = await postNote('{"text": "unterminated');
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_request');
    expect(error.message).toMatch(/not valid JSON/);
  });

  it('refuses a prototype-poisoning body as invalid JSON', async () => {
    const res = await postNote('{"text":"a","__proto__":{"polluted":true}}');
    expect(res.status).toBe(400);
    expect((await errorOf(res)).code).toBe('invalid_request');
  });

  it('answers a non-JSON content type with 415 unsupported_media_type', async () => {
    const res = await postNote('text=hello', 'application/x-www-form-urlencoded');
    expect(res.status).toBe(415);
    expect((await errorOf(res)).code).toBe('unsupported_media_type');
  });

  it('lists every body validation problem with its path', async () => {
    const res = await postNote(JSON.stringify({ priority: 9, extra: true }));
    expect(res.status).toBe(400);
    const error = await errorOf(res);
    expect(error.code).toBe('invalid_request');
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: '/body/text', message: 'is required' },
        { path: '/body/extra', message: 'is not an allowed property' },
        { path: '/body/priority', message: expect.stringContaining('5') },
      ]),
    );
    expect(error.details).toHaveLength(3);
  });

  it('does not convert body types: a number sent as text is refused', async () => {
    const res = await postNote(JSON.stringify({ text: 'a', priority: '2' }));
    expect(res.status).toBe(400);
    expect((await errorOf(res)).details).toEqual([{ path: '/body/priority', message: 'must be integer' }]);
  });

  it('answers an unexpected failure with 500 internal_error that reveals nothing, and logs the stack under the request id', async () => {
    const res = await fetch(`${h.url}/test/boom`, { headers: { ...bearer(TEST_KEYS.viewer), 'x-request-id': 'boom-trace-1' } });
    expect(res.status).toBe(500);
    const text = await res.clone().text();
    expect(text).not.toContain('db-internal');
    expect(text).not.toContain('orch_admin');
    expect(text).not.toMatch(/at .*\.ts/);
    const error = await errorOf(res);
    expect(error.code).toBe('internal_error');
    expect(error.requestId).toBe('boom-trace-1');
    const logged = h.logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === 'boom-trace-1' && l.err);
    expect(logged?.err?.message).toContain('db-internal');
    expect(logged?.err?.stack).toContain('synthetic-routes');
  });

  it('answers a coded failure of the service’s side with its code, a sentence and the request id, never its message', async () => {
    const res = await fetch(`${h.url}/test/corrupt-state`, { headers: { 'x-request-id': 'corrupt-trace-1' } });
    expect(res.status).toBe(500);
    expect(await res.clone().text()).not.toContain('/srv/orchestrator');
    const error = await errorOf(res);
    expect(error.code).toBe('state_corrupt');
    expect(error.message).toContain('corrupt-trace-1');
    const logged = h.logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === 'corrupt-trace-1' && l.err);
    expect(logged?.err?.message).toContain('/srv/orchestrator/state.json');
  });

  it('treats a synchronous handler that throws the same way', async () => {
    const res = await fetch(`${h.url}/test/boom-sync`, { headers: { 'x-request-id': 'boom-sync-1' } });
    expect(res.status).toBe(500);
    expect(await res.clone().text()).not.toContain('secret-path');
    const error = await errorOf(res);
    expect(error.code).toBe('internal_error');
    expect(error.requestId).toBe('boom-sync-1');
    expect(res.headers.get('x-request-id')).toBe('boom-sync-1');
    const logged = h.logLines.map((l) => JSON.parse(l)).find((l) => l.reqId === 'boom-sync-1' && l.err);
    expect(logged?.err?.message).toContain('secret-path');
  });
});

describe('query and path validation', () => {
  const item = (path: string) => fetch(`${h.url}${path}`, { headers: bearer(TEST_KEYS.viewer) });

  it('converts exact spellings of numbers and booleans and fills defaults', async () => {
    const res = await item('/test/items/abc-1?limit=25&verbose=true');
    expect(res.status).toBe(200);
    const body = await readJson(res);
    expect(body).toEqual({ itemId: 'abc-1', query: { limit: 25, verbose: true }, undocumentedField: 'kept' });
    const defaults = await readJson(await item('/test/items/abc-1'));
    expect(defaults.query).toEqual({ limit: 10 });
  });

  it('refuses loose spellings instead of guessing', async () => {
    for (const [query, path] of [
      ['limit=2.5', '/querystring/limit'],
      ['limit=ten', '/querystring/limit'],
      ['verbose=1', '/querystring/verbose'],
      ['verbose=yes', '/querystring/verbose'],
    ]) {
      const res = await item(`/test/items/abc?${query}`);
      expect(res.status, query).toBe(400);
      const error = await errorOf(res);
      expect(error.details!.map((d) => d.path)).toEqual([path]);
    }
  });

  it('reports a failed union once, naming the allowed values', async () => {
    const error = await errorOf(await item('/test/items/abc?mode=medium'));
    expect(error.details).toEqual([{ path: '/querystring/mode', message: 'must be one of "short", "long"' }]);
  });

  it('validates path parameters and unknown query parameters', async () => {
    expect((await errorOf(await item('/test/items/NOT_VALID'))).details![0]!.path).toBe('/params/itemId');
    expect((await errorOf(await item('/test/items/abc?unknown=1'))).details).toEqual([
      { path: '/querystring/unknown', message: 'is not an allowed property' },
    ]);
  });
});

describe('request ids', () => {
  it('echoes a valid incoming X-Request-Id', async () => {
    const res = await fetch(`${h.url}/health`, { headers: { 'x-request-id': 'client-trace:42.a_b-c' } });
    expect(res.headers.get('x-request-id')).toBe('client-trace:42.a_b-c');
  });

  it('replaces an invalid or oversized one with a new UUID', async () => {
    for (const bad of ['has spaces', 'x'.repeat(129), 'semi;colon', '<script>']) {
      const res = await fetch(`${h.url}/health`, { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    }
  });

  it('generates a distinct id per request and sends it on errors, 404s and preflights', async () => {
    const a = (await fetch(`${h.url}/health`)).headers.get('x-request-id');
    const b = (await fetch(`${h.url}/health`)).headers.get('x-request-id');
    expect(a).not.toBe(b);
    expect((await fetch(`${h.url}/nope`)).headers.get('x-request-id')).toBeTruthy();
    expect((await fetch(`${h.url}/test/notes`)).headers.get('x-request-id')).toBeTruthy();
  });
});
