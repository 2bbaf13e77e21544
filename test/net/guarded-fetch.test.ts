import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nonPublicKind, type AddressPolicy } from '../../src/net/address-policy.js';
import { guardedFetchFunction, OutboundRefusal } from '../../src/net/fetch-function.js';
import { guardedFetch, SYSTEM_NETWORK, type GuardedFetchOptions, type GuardedOutcome, type OutboundNetwork } from '../../src/net/guarded-fetch.js';
import { startLoopbackServer, type LoopbackServer, type Route } from '../support/loopback-server.js';

/**
 * Two loopback hosts: 127.0.0.2 stands for a public site (this test's address policy calls it
 * public, so nothing leaves the machine) and 127.0.0.1 for the service's own network, which
 * the built-in tables call loopback.
 */
const PUBLIC_HERE = '127.0.0.2';
const publicHere: AddressPolicy = (address) => (address === PUBLIC_HERE ? null : nonPublicKind(address));
const NETWORK: OutboundNetwork = { ...SYSTEM_NETWORK, addressKind: publicHere };
const LIMITS = { maxBytes: 1024, timeoutMs: 5_000, maxRedirects: 3 };
const REFUSE_PRIVATE: GuardedFetchOptions = { rules: { allowPrivate: false, privateSetting: 'test.allowPrivateHosts' }, limits: LIMITS, network: NETWORK };
const HINT = 'private hosts are not allowed (test.allowPrivateHosts is false)';

let internal: LoopbackServer;
let site: LoopbackServer;

beforeAll(async () => {
  internal = await startLoopbackServer({ '/admin': { contentType: 'text/plain', body: 'internal secrets' } });
  // The server reads its routes when asked, so a route may name the server's own port.
  const routes: Record<string, Route> = {
    '/page': { contentType: 'text/plain', body: 'public page' },
    '/to-internal': { status: 302, headers: { location: `${internal.url}/admin` }, body: '' },
    '/see-other': { status: 303, headers: { location: '/page' }, body: '' },
    '/temporary': { status: 307, headers: { location: '/page' }, body: '' },
    '/loop': { status: 302, headers: { location: '/loop' }, body: '' },
    '/large': { contentType: 'text/plain', body: 'x'.repeat(5_000) },
  };
  site = await startLoopbackServer(routes, { host: PUBLIC_HERE });
  routes['/to-other-origin'] = { status: 307, headers: { location: `http://other.test:${new URL(site.url).port}/page` }, body: '' };
});
afterAll(async () => {
  await internal.close();
  await site.close();
});

function received(server: LoopbackServer, since: number) {
  return server.received.slice(since).map((r) => `${r.method} ${r.url}`);
}

function responseOf(outcome: GuardedOutcome): Response {
  if (outcome.kind !== 'response') throw new Error(`expected a response, got ${JSON.stringify(outcome)}`);
  return outcome.response;
}

describe('guarded fetch', () => {
  it('refuses a loopback address, naming its kind and the setting, and sends nothing; fetches it when the setting allows', async () => {
    const before = internal.received.length;
    expect(await guardedFetch(`${internal.url}/admin`, {}, REFUSE_PRIVATE)).toEqual({
      kind: 'refused',
      reason: `127.0.0.1 is a loopback address; ${HINT}`,
      status: null,
      redirects: [],
    });
    expect(await guardedFetch(`http://localhost:${new URL(internal.url).port}/admin`, {}, REFUSE_PRIVATE)).toMatchObject({
      kind: 'refused',
      reason: `localhost is a loopback host name; ${HINT}`,
    });
    expect(received(internal, before)).toEqual([]);

    const allowed = await guardedFetch(`${internal.url}/admin`, {}, { ...REFUSE_PRIVATE, rules: { ...REFUSE_PRIVATE.rules, allowPrivate: true } });
    expect(await responseOf(allowed).text()).toBe('internal secrets');
    expect(received(internal, before)).toEqual(['GET /admin']);
  });

  it('refuses a name that resolves to a private address, and other schemes and credentials, before any request', async () => {
    const lookup = async () => [{ address: PUBLIC_HERE, family: 4 }, { address: '10.1.2.3', family: 4 }];
    const network = { ...NETWORK, lookup, request: () => Promise.reject(new Error('no request may be sent')) };
    expect(await guardedFetch('http://shop.example.test/', {}, { ...REFUSE_PRIVATE, network })).toMatchObject({
      kind: 'refused',
      reason: `shop.example.test resolves to private address 10.1.2.3; ${HINT}`,
    });
    expect(await guardedFetch('file:///etc/passwd', {}, REFUSE_PRIVATE)).toMatchObject({ kind: 'refused', reason: 'scheme file: is not allowed; only http and https are fetched' });
    expect(await guardedFetch(`http://user:pw@${PUBLIC_HERE}/page`, {}, REFUSE_PRIVATE)).toMatchObject({ kind: 'refused', reason: 'URLs carrying credentials are not fetched' });
  });

  it('checks every redirect hop: a public page redirecting to loopback is refused, not followed', async () => {
    const before = internal.received.length;
    const outcome = await guardedFetch(`${site.url}/to-internal`, {}, REFUSE_PRIVATE);
    expect(outcome).toEqual({ kind: 'refused', reason: `127.0.0.1 is a loopback address; ${HINT}`, status: 302, redirects: [`${internal.url}/admin`] });
    expect(received(internal, before)).toEqual([]);
  });

  it('follows allowed redirects as fetch does: a 303 becomes a GET without the body, a 307 keeps them, another origin loses the credentials', async () => {
    const before = site.received.length;
    const post = { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer secret' }, body: '{"a":1}' };
    // other.test is another name for the same site.
    const options = { ...REFUSE_PRIVATE, network: { ...NETWORK, lookup: async () => [{ address: PUBLIC_HERE, family: 4 }] } };
    expect(await responseOf(await guardedFetch(`${site.url}/see-other`, post, options)).text()).toBe('public page');
    expect(await responseOf(await guardedFetch(`${site.url}/temporary`, post, options)).text()).toBe('public page');
    const moved = await guardedFetch(`${site.url}/to-other-origin`, post, options);
    expect(moved).toMatchObject({ kind: 'response', redirects: [`http://other.test:${new URL(site.url).port}/page`] });

    const requests = site.received.slice(before);
    expect(requests.map((r) => [r.method, r.url, r.body])).toEqual([
      ['POST', '/see-other', '{"a":1}'],
      ['GET', '/page', ''],
      ['POST', '/temporary', '{"a":1}'],
      ['POST', '/page', '{"a":1}'],
      ['POST', '/to-other-origin', '{"a":1}'],
      ['POST', '/page', '{"a":1}'],
    ]);
    expect(requests[1]!.headers['content-type']).toBeUndefined();
    expect(requests[3]!.headers.authorization).toBe('Bearer secret');
    expect(requests[5]!.headers.authorization).toBeUndefined();
  });

  it('stops at the redirect limit', async () => {
    const outcome = await guardedFetch(`${site.url}/loop`, {}, REFUSE_PRIVATE);
    expect(outcome).toMatchObject({ kind: 'failed', status: 302, error: expect.objectContaining({ message: 'more than 3 redirects' }) });
    expect(outcome.redirects).toHaveLength(3);
  });

  it('caps the body: a read past the cap fails naming the limit, or ends at the cap and says it was cut', async () => {
    const failing = responseOf(await guardedFetch(`${site.url}/large`, {}, REFUSE_PRIVATE));
    await expect(failing.text()).rejects.toMatchObject({ code: 'upstream_error', message: 'response body exceeds the 1024-byte limit' });
    const cut = await guardedFetch(`${site.url}/large`, {}, { ...REFUSE_PRIVATE, overLimit: 'truncate' });
    expect(await responseOf(cut).text()).toBe('x'.repeat(1024));
    expect(cut.kind === 'response' && cut.truncated()).toBe(true);
  });

  describe('one deadline', () => {
    let stalling: Server;
    let url: string;
    beforeAll(async () => {
      stalling = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('the start of a body that never ends');
      });
      await new Promise<void>((resolve) => stalling.listen(0, PUBLIC_HERE, resolve));
      url = `http://${PUBLIC_HERE}:${(stalling.address() as AddressInfo).port}/`;
    });
    afterAll(() => {
      stalling.closeAllConnections();
      stalling.close();
    });

    it('covers the body: a body still streaming at the deadline fails its read as a timeout', async () => {
      const outcome = await guardedFetch(url, {}, { ...REFUSE_PRIVATE, limits: { ...LIMITS, timeoutMs: 300 } });
      await expect(responseOf(outcome).text()).rejects.toMatchObject({ name: 'TimeoutError' });
    });

    it("ends with the caller's own signal", async () => {
      const cancelled = new AbortController();
      cancelled.abort();
      expect(await guardedFetch(url, { signal: cancelled.signal }, REFUSE_PRIVATE)).toMatchObject({ kind: 'failed', error: expect.objectContaining({ name: 'AbortError' }) });
    });
  });
});

describe('guarded fetch in the shape of fetch', () => {
  it('answers a Response, and throws an OutboundRefusal naming the setting for a refused address', async () => {
    const guarded = guardedFetchFunction(REFUSE_PRIVATE);
    const response = await guarded(`${site.url}/page`, { method: 'POST', headers: new Headers({ 'content-type': 'text/plain' }), body: 'hello' });
    expect(await response.text()).toBe('public page');
    expect(site.received.at(-1)).toMatchObject({ method: 'POST', url: '/page', body: 'hello' });

    const before = internal.received.length;
    const refusal = await guarded(new URL(`${internal.url}/admin`)).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(OutboundRefusal);
    expect(refusal).toMatchObject({ code: 'forbidden', message: `127.0.0.1 is a loopback address; ${HINT}` });
    expect(received(internal, before)).toEqual([]);
  });
});
