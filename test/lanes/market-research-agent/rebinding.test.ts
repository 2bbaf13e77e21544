import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FETCH_LIMITS, type NetworkDeps } from '../../../agents/market-research-agent/fetch-page.js';
import { runMarketResearch, type MarketResearchResult, type Source } from '../../../agents/market-research-agent/research.js';
import { nonPublicKind, type AddressPolicy } from '../../../src/net/address-policy.js';
import { SYSTEM_NETWORK } from '../../../src/net/guarded-fetch.js';
import { pinnedLookup, pinnedRequest } from '../../../src/net/pinned-request.js';
import { startLoopbackServer, type LoopbackServer } from '../../support/loopback-server.js';
import { installRebindingDns, type RebindingDns } from '../../support/rebinding-dns.js';

/**
 * The answer the check gets: a loopback address that this test's address policy calls public,
 * so the check passes it and the connection really goes somewhere, without leaving the machine.
 * A recording server there answers with a page of its own; the rebound answer (127.0.0.1) is
 * where the internal page lives, which must never be reached.
 */
const VETTED = '127.0.0.2';
const VETTED_IS_PUBLIC: AddressPolicy = (address) => (address === VETTED ? null : nonPublicKind(address));
const ZONE = 'rebinding.test';
const NO_PRIVATE = { allowPrivateHosts: false, allowedDomains: [ZONE] };
const TRIES = 30;
const HEADERS = { accept: 'text/html' };

async function research(...args: Parameters<typeof runMarketResearch>): Promise<MarketResearchResult> {
  return (await runMarketResearch(...args)) as MarketResearchResult;
}

function onlySource(result: MarketResearchResult): Source {
  const sources = result.sources as Source[];
  expect(sources).toHaveLength(1);
  return sources[0]!;
}

async function listen(server: Server | ReturnType<typeof createTlsServer>): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The vetted address's server and the internal one on one port, so a URL's port fits both. */
async function twinServers(): Promise<{ vetted: LoopbackServer; internal: LoopbackServer }> {
  for (let attempt = 1; ; attempt += 1) {
    const vetted = await startLoopbackServer({ '/pricing': { contentType: 'text/html', body: '<title>Public price list</title>' } }, { host: VETTED });
    try {
      const internal = await startLoopbackServer(
        { '/pricing': { contentType: 'text/html', body: '<title>Internal price list</title><p>$1/month</p>' } },
        { port: Number(new URL(vetted.url).port) },
      );
      return { vetted, internal };
    } catch (error) {
      await vetted.close();
      // The port was free on 127.0.0.2 but taken on 127.0.0.1: try another.
      if (attempt >= 5) throw error;
    }
  }
}

describe('market-research under DNS rebinding', () => {
  let vetted: LoopbackServer;
  let internal: LoopbackServer;
  let port: string;
  let rebinding: RebindingDns;
  /** The lane's own network (the process resolver, pinned requests), with the test's address policy. */
  const network: NetworkDeps = { ...SYSTEM_NETWORK, addressKind: VETTED_IS_PUBLIC };

  beforeAll(async () => {
    ({ vetted, internal } = await twinServers());
    port = new URL(internal.url).port;
  });
  afterAll(async () => {
    await vetted.close();
    await internal.close();
  });
  beforeEach(() => {
    vetted.received.length = 0;
    internal.received.length = 0;
  });
  afterEach(() => rebinding.restore());

  it(`connects only to the address the check vetted, never to the one a second resolution answers (${TRIES} tries)`, async () => {
    rebinding = installRebindingDns({ zone: ZONE, firstAnswer: VETTED });
    const names = Array.from({ length: TRIES }, (_, i) => `shop-${i}.${ZONE}`);
    const results = await Promise.all(names.map((name) => research({ urls: [`http://${name}:${port}/pricing`], __marketResearch: NO_PRIVATE }, network)));

    expect(internal.received).toHaveLength(0);
    expect(vetted.received).toHaveLength(TRIES);
    for (const [i, result] of results.entries()) {
      expect(onlySource(result)).toMatchObject({ status: 'fetched', title: 'Public price list' });
      // The name was resolved once, by the check; the connection asked nobody.
      expect(rebinding.calls(names[i]!)).toBe(1);
    }
  });

  it('connects a redirect hop only to the address its own check vetted', async () => {
    rebinding = installRebindingDns({ zone: ZONE, firstAnswer: VETTED });
    const hops = Array.from({ length: TRIES }, (_, i) => `http://hop-${i}.${ZONE}:${port}/pricing`);
    // The first page is answered in-process with a redirect; every hop goes through the lane's
    // real pinned request.
    const deps: NetworkDeps = {
      ...network,
      request: (url, addresses, init) => {
        const match = /^start-(\d+)\./.exec(url.hostname);
        if (match) return Promise.resolve(new Response(null, { status: 302, headers: { location: hops[Number(match[1])]! } }));
        return pinnedRequest(url, addresses, init);
      },
    };
    const results = await Promise.all(hops.map((_, i) => research({ urls: [`http://start-${i}.${ZONE}/moved`], __marketResearch: NO_PRIVATE }, deps)));

    expect(internal.received).toHaveLength(0);
    expect(vetted.received).toHaveLength(TRIES);
    for (const [i, result] of results.entries()) {
      expect(onlySource(result)).toMatchObject({ status: 'fetched', title: 'Public price list', redirects: [hops[i]] });
      expect(rebinding.calls(`hop-${i}.${ZONE}`)).toBe(1);
    }
  });

  it('refuses the vetted address under the built-in policy: it is loopback', async () => {
    rebinding = installRebindingDns({ zone: ZONE, firstAnswer: VETTED });
    const result = await research({ urls: [`http://shop.${ZONE}:${port}/pricing`], __marketResearch: NO_PRIVATE }, SYSTEM_NETWORK);
    expect(onlySource(result)).toMatchObject({
      status: 'refused',
      reason: `shop.${ZONE} resolves to loopback address ${VETTED}; private hosts are not allowed (marketResearch.allowPrivateHosts is false)`,
    });
    expect(vetted.received).toHaveLength(0);
    expect(internal.received).toHaveLength(0);
  });
});

describe('pinned request', () => {
  let rebinding: RebindingDns | undefined;
  afterEach(() => {
    rebinding?.restore();
    rebinding = undefined;
  });

  it('connects to the vetted address, sends the name as Host and resolves nothing', async () => {
    const site = await startLoopbackServer({ '/pricing?plan=team': { contentType: 'text/html', body: '<title>Plans</title>' } });
    try {
      // Any resolution of the name would answer another address, where nothing listens.
      rebinding = installRebindingDns({ zone: ZONE, firstAnswer: VETTED, rebindTo: VETTED });
      const { port } = new URL(site.url);
      const response = await pinnedRequest(new URL(`http://shop.${ZONE}:${port}/pricing?plan=team#top`), ['127.0.0.1'], {
        headers: HEADERS,
        signal: AbortSignal.timeout(5_000),
      });
      expect(response.status).toBe(200);
      expect(await response.text()).toBe('<title>Plans</title>');
      expect(site.received).toEqual([expect.objectContaining({ method: 'GET', url: '/pricing?plan=team' })]);
      expect(site.received[0]!.headers.host).toBe(`shop.${ZONE}:${port}`);
      expect(rebinding.calls(`shop.${ZONE}`)).toBe(0);
    } finally {
      await site.close();
    }
  });

  it('uses the host name, not the address, as the TLS server name', async () => {
    let serverName: string | undefined;
    const server = createTlsServer({
      SNICallback: (name, callback) => {
        serverName = name;
        callback(new Error('no certificate in this test'), undefined);
      },
    });
    server.on('tlsClientError', () => {});
    const port = await listen(server);
    try {
      await expect(
        pinnedRequest(new URL(`https://shop.${ZONE}:${port}/`), ['127.0.0.1'], { headers: HEADERS, signal: AbortSignal.timeout(5_000) }),
      ).rejects.toThrow();
      expect(serverName).toBe(`shop.${ZONE}`);
    } finally {
      server.close();
    }
  });

  it('answers the connection with the vetted addresses only, for one or all, and refuses any other name', async () => {
    const lookup = pinnedLookup('shop.rebinding.test', ['2606:4700::1111', '93.184.216.34']);
    const ask = (host: string, options: Parameters<typeof lookup>[1]) =>
      new Promise<unknown>((resolve, reject) => lookup(host, options, (err, address, family) => (err ? reject(err) : resolve({ address, family }))));
    await expect(ask('shop.rebinding.test', {})).resolves.toEqual({ address: '2606:4700::1111', family: 6 });
    await expect(ask('Shop.Rebinding.Test.', { family: 4 })).resolves.toEqual({ address: '93.184.216.34', family: 4 });
    await expect(ask('shop.rebinding.test', { all: true })).resolves.toEqual({
      address: [
        { address: '2606:4700::1111', family: 6 },
        { address: '93.184.216.34', family: 4 },
      ],
      family: undefined,
    });
    await expect(ask('other.rebinding.test', { all: true })).rejects.toMatchObject({ code: 'ENOTFOUND' });
  });

  describe('in the lane', () => {
    let server: Server;
    let port: number;
    const page = '<html><head><title>Compressed pricing</title></head><body><p>$12/month</p></body></html>';

    beforeAll(async () => {
      server = createServer((req, res) => {
        if (req.url === '/gzip') {
          res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(page));
        } else if (req.url === '/stall') {
          res.writeHead(200, { 'content-type': 'text/html' });
          res.write('<html><head><title>Never finished</title>');
        } else {
          res.writeHead(200, { 'content-type': 'text/html' }).end(page);
        }
      });
      port = await listen(server);
    });
    afterAll(() => {
      server.closeAllConnections();
      server.close();
    });

    const allowLocal = { allowPrivateHosts: true, allowedDomains: ['site.test'] };
    const toLoopback: NetworkDeps = { lookup: async () => [{ address: '127.0.0.1', family: 4 }], request: pinnedRequest };

    it('connects a name to the loopback address it resolved to when private hosts are allowed', async () => {
      const result = await research({ urls: [`http://www.site.test:${port}/plain`], __marketResearch: allowLocal }, toLoopback);
      expect(onlySource(result)).toMatchObject({ status: 'fetched', title: 'Compressed pricing' });
    });

    it('reads a gzip-encoded page as fetch would', async () => {
      const result = await research({ urls: [`http://www.site.test:${port}/gzip`], __marketResearch: allowLocal }, toLoopback);
      expect(onlySource(result)).toMatchObject({ status: 'fetched', title: 'Compressed pricing', prices: [{ amount: 12, currency: 'USD', period: 'month' }] });
    });

    it('keeps one deadline for the whole URL, the body included', async () => {
      const started = Date.now();
      const result = await research({ urls: [`http://www.site.test:${port}/stall`], __marketResearch: allowLocal }, toLoopback, { ...FETCH_LIMITS, timeoutMs: 300 });
      expect(onlySource(result)).toMatchObject({ status: 'failed', httpStatus: 200, reason: 'externally dependent: request timed out' });
      expect(Date.now() - started).toBeLessThan(5_000);
    });
  });
});
