import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_ALLOWED_DOMAINS } from '../../../agents/market-research-agent/allowlist.js';
import { FETCH_LIMITS, type NetworkDeps } from '../../../agents/market-research-agent/fetch-page.js';
import { pinnedRequest, type PinnedRequest } from '../../../src/net/pinned-request.js';
import { MAX_URLS, marketResearch, runMarketResearch, type MarketResearchResult, type Source } from '../../../agents/market-research-agent/research.js';
import { defineLane } from '../../../src/worker-sdk/lane-definition.js';

/** The lane's answer with its result fields typed; a refused payload simply lacks them. */
async function research(...args: Parameters<typeof runMarketResearch>): Promise<MarketResearchResult> {
  return (await runMarketResearch(...args)) as MarketResearchResult;
}

const PRICING_HTML = `<!doctype html><html><head><title>Acme Cloud pricing</title></head><body>
<h1>Pricing</h1><h2>Starter</h2><p>$49/month per workspace</p>
<h2>Business</h2><p>€1.299,00 per year</p><p>Updated March 5, 2026</p></body></html>`;

/** A small site on 127.0.0.1 that counts the requests each path receives. */
function startSite(): Promise<{ server: Server; origin: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    hits.set(req.url ?? '/', (hits.get(req.url ?? '/') ?? 0) + 1);
    const path = new URL(req.url ?? '/', 'http://site.test').pathname;
    if (path === '/pricing') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PRICING_HTML);
    } else if (path === '/old-pricing') {
      res.writeHead(301, { location: '/pricing' }).end();
    } else if (path === '/to-outside') {
      res.writeHead(302, { location: 'http://pricing.example.net/plans' }).end();
    } else if (path === '/loop') {
      res.writeHead(302, { location: '/loop' }).end();
    } else if (path === '/huge') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Huge catalogue</title></head><body><h1>Everything</h1>');
      res.end(`<p>${'item $5 '.repeat(100_000)}</p></body></html>`);
    } else if (path === '/logo.png') {
      res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(64));
    } else {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
    }
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, origin: `http://127.0.0.1:${port}`, hits });
    });
  });
}

const ALLOW_LOCAL = { allowPrivateHosts: true, allowedDomains: ['127.0.0.1'] };

function sourceAt(sources: unknown, index: number): Source {
  return (sources as Source[])[index]!;
}

describe('market-research against a local site', () => {
  let site: Awaited<ReturnType<typeof startSite>>;

  beforeAll(async () => {
    site = await startSite();
  });
  afterAll(() => {
    site.server.close();
  });

  it('fetches an allowed page and extracts its title, headings, prices and dates', async () => {
    const result = await research({ urls: [`${site.origin}/pricing`], __marketResearch: ALLOW_LOCAL });
    expect(result.success).toBe(true);
    expect(result.specialistContract.status).toBe('completed');
    const source = sourceAt(result.sources, 0);
    expect(source).toMatchObject({ url: `${site.origin}/pricing`, status: 'fetched', httpStatus: 200, title: 'Acme Cloud pricing' });
    expect(source.headings.map((h) => h.text)).toEqual(['Pricing', 'Starter', 'Business']);
    expect(source.prices).toEqual([
      { text: '$49/month', amount: 49, currency: 'USD', period: 'month' },
      { text: '€1.299,00 per year', amount: 1299, currency: 'EUR', period: 'year' },
    ]);
    expect(source.dates).toEqual([{ text: 'March 5, 2026', date: '2026-03-05' }]);
    expect(result.operatorSummary).toBe('Fetched 1 of 1 URL; found 2 prices and 1 date.');
  });

  it('refuses a loopback URL without sending it a single request when private hosts are not allowed', async () => {
    const before = site.hits.get('/pricing') ?? 0;
    const result = await research({
      urls: [`${site.origin}/pricing`],
      __marketResearch: { allowPrivateHosts: false, allowedDomains: ['127.0.0.1'] },
    });
    expect(site.hits.get('/pricing') ?? 0).toBe(before);
    expect(result.success).toBe(false);
    const source = sourceAt(result.sources, 0);
    expect(source.status).toBe('refused');
    expect(source.httpStatus).toBeNull();
    expect(source.reason).toBe('127.0.0.1 is a loopback address; private hosts are not allowed (marketResearch.allowPrivateHosts is false)');
    expect(result.specialistContract).toMatchObject({ status: 'refused', escalationReason: null });
    expect(result.specialistContract.refusalReason).toContain('127.0.0.1 is a loopback address');
  });

  it('refuses loopback by default too, as localhost and as IPv6, before any lookup', async () => {
    const lookup = vi.fn<NetworkDeps['lookup']>();
    const requestSpy = vi.fn<PinnedRequest>();
    const result = await research(
      { urls: [`${site.origin}/pricing`, 'http://localhost:8080/admin', 'http://[::1]/', 'http://[::ffff:10.0.0.1]/'] },
      { lookup, request: requestSpy },
    );
    expect(lookup).not.toHaveBeenCalled();
    expect(requestSpy).not.toHaveBeenCalled();
    expect((result.sources as Source[]).map((s) => s.reason)).toEqual([
      '127.0.0.1 is a loopback address; private hosts are not allowed (marketResearch.allowPrivateHosts is false)',
      'localhost is a loopback host name; private hosts are not allowed (marketResearch.allowPrivateHosts is false)',
      '::1 is a loopback address; private hosts are not allowed (marketResearch.allowPrivateHosts is false)',
      '::ffff:a00:1 is a private address; private hosts are not allowed (marketResearch.allowPrivateHosts is false)',
    ]);
  });

  it('follows a redirect within the allowlist and reports where the page was read', async () => {
    const result = await research({ urls: [`${site.origin}/old-pricing`], __marketResearch: ALLOW_LOCAL });
    const source = sourceAt(result.sources, 0);
    expect(source).toMatchObject({ status: 'fetched', finalUrl: `${site.origin}/pricing`, redirects: [`${site.origin}/pricing`] });
    expect(source.title).toBe('Acme Cloud pricing');
  });

  it('checks every redirect hop: a hop outside the allowlist is refused and not followed', async () => {
    const requestSpy = vi.fn<PinnedRequest>(pinnedRequest);
    const result = await research(
      { urls: [`${site.origin}/to-outside`], __marketResearch: ALLOW_LOCAL },
      { lookup: vi.fn(), request: requestSpy },
    );
    expect(requestSpy).toHaveBeenCalledTimes(1);
    expect(sourceAt(result.sources, 0)).toMatchObject({
      status: 'refused',
      httpStatus: 302,
      reason: 'redirect to http://pricing.example.net/plans refused: pricing.example.net is outside the allowlist (127.0.0.1)',
    });
    expect(result.success).toBe(false);
  });

  it('stops a redirect loop at the hop limit', async () => {
    const before = site.hits.get('/loop') ?? 0;
    const result = await research({ urls: [`${site.origin}/loop`], __marketResearch: ALLOW_LOCAL });
    expect(sourceAt(result.sources, 0)).toMatchObject({ status: 'failed', reason: `more than ${FETCH_LIMITS.maxRedirects} redirects` });
    expect((site.hits.get('/loop') ?? 0) - before).toBe(FETCH_LIMITS.maxRedirects + 1);
  });

  it('reads at most the size cap of a page and says the page was cut', async () => {
    const result = await research(
      { urls: [`${site.origin}/huge`], __marketResearch: ALLOW_LOCAL },
      undefined,
      { ...FETCH_LIMITS, maxBytes: 4096 },
    );
    const source = sourceAt(result.sources, 0);
    expect(source).toMatchObject({ status: 'fetched', truncated: true, title: 'Huge catalogue' });
    expect(source.prices).toEqual([{ text: '$5', amount: 5, currency: 'USD', period: null }]);
  });

  it('lists pages that fail with their HTTP status or content type, and succeeds in part with the rest', async () => {
    const result = await research({
      urls: [`${site.origin}/pricing`, `${site.origin}/gone`, `${site.origin}/logo.png`],
      __marketResearch: ALLOW_LOCAL,
    });
    expect(result.success).toBe(true);
    expect(result.specialistContract.status).toBe('partial');
    expect((result.sources as Source[]).map((s) => [s.status, s.httpStatus, s.reason ?? null])).toEqual([
      ['fetched', 200, null],
      ['failed', 404, 'HTTP 404 Not Found'],
      ['failed', 200, 'content type image/png is not a readable page'],
    ]);
    expect(result).toMatchObject({ fetchedCount: 1, failedCount: 2, refusedCount: 0 });
  });

  it(`fetches at most ${MAX_URLS} URLs and lists the rest as refused`, async () => {
    const urls = Array.from({ length: MAX_URLS + 2 }, (_, i) => `${site.origin}/pricing?page=${i}`);
    const result = await research({ urls, __marketResearch: ALLOW_LOCAL });
    const sources = result.sources as Source[];
    expect(sources.filter((s) => s.status === 'fetched')).toHaveLength(MAX_URLS);
    expect(sources.slice(MAX_URLS).map((s) => s.reason)).toEqual([
      `beyond the ${MAX_URLS}-URL limit of one run; not fetched`,
      `beyond the ${MAX_URLS}-URL limit of one run; not fetched`,
    ]);
    expect(site.hits.get(`/pricing?page=${MAX_URLS}`)).toBeUndefined();
  });
});

describe('market-research policy without a network', () => {
  const unreachable: NetworkDeps = {
    lookup: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND docs.github.com'), { code: 'ENOTFOUND' })),
    request: vi.fn<PinnedRequest>(),
  };

  it('fails explicitly when the network is unreachable and escalates with the reason', async () => {
    const result = await research({ urls: ['https://docs.github.com/en/billing'] }, unreachable);
    expect(result.success).toBe(false);
    expect(sourceAt(result.sources, 0)).toMatchObject({
      status: 'failed',
      httpStatus: null,
      reason: 'externally dependent: network unreachable (ENOTFOUND)',
    });
    expect(result.specialistContract).toMatchObject({ status: 'escalated', refusalReason: null });
    expect(result.specialistContract.escalationReason).toBe(
      'no source could be fetched: https://docs.github.com/en/billing: externally dependent: network unreachable (ENOTFOUND)',
    );
    expect(unreachable.request).not.toHaveBeenCalled();
  });

  it('reports a refused connection as an external failure with its code', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const result = await research({ urls: [`http://127.0.0.1:${port}/`], __marketResearch: ALLOW_LOCAL });
    expect(sourceAt(result.sources, 0)).toMatchObject({ status: 'failed', reason: 'externally dependent: request failed (ECONNREFUSED)' });
    expect(result.success).toBe(false);
  });

  it('refuses an allowlisted name when any of its addresses is private, without fetching', async () => {
    const requestSpy = vi.fn<PinnedRequest>();
    const result = await research(
      { urls: ['https://pricing.acme.example/plans'], __marketResearch: { allowPrivateHosts: false, allowedDomains: ['acme.example'] } },
      { lookup: async () => [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }], request: requestSpy },
    );
    expect(requestSpy).not.toHaveBeenCalled();
    expect(sourceAt(result.sources, 0).reason).toBe(
      'pricing.acme.example resolves to private address 10.0.0.7; private hosts are not allowed (marketResearch.allowPrivateHosts is false)',
    );
  });

  it('refuses domains outside the built-in allowlist, other schemes and URLs with credentials', async () => {
    const result = await research({ urls: ['https://competitor.example/pricing', 'ftp://docs.github.com/x', 'https://user:pw@stripe.com/pricing'] }, unreachable);
    expect((result.sources as Source[]).map((s) => s.reason)).toEqual([
      `competitor.example is outside the allowlist (${DEFAULT_ALLOWED_DOMAINS.join(', ')})`,
      'scheme ftp: is not allowed; only http and https are fetched',
      'URLs carrying credentials are not fetched',
    ]);
    expect(result.specialistContract.status).toBe('refused');
  });
});

describe('market-research source plans', () => {
  it('plans allowlisted domains for a query and says nothing was fetched', async () => {
    const result = await research({ query: 'GitHub Actions pricing', scope: 'CI for small teams' });
    expect(result.success).toBe(true);
    expect(result.sources).toEqual([]);
    const plan = result.sourcePlan as Array<{ domain: string; suggestedUrls: string[]; matchedTerms: string[] }>;
    expect(plan.map((p) => p.domain)).toEqual(['docs.github.com', 'github.com', 'aws.amazon.com', 'stripe.com']);
    expect(plan[0]!.matchedTerms).toEqual(['github', 'actions', 'ci']);
    expect(plan[0]!.suggestedUrls).toEqual(['https://docs.github.com/en/search?query=GitHub%20Actions%20pricing%20CI%20for%20small%20teams']);
    expect(plan[1]!.suggestedUrls[0]).toBe('https://github.com/pricing');
    expect(result.operatorSummary).toMatch(/^Nothing was fetched: derived a source plan of 4 allowlisted domains/);
  });

  it('plans an operator-allowlisted domain the query names, and falls back to general references', async () => {
    const named = await research({ query: 'acme plans', __marketResearch: { allowPrivateHosts: false, allowedDomains: ['acme.example', 'en.wikipedia.org'] } });
    expect((named.sourcePlan as Array<{ domain: string; suggestedUrls: string[] }>)[0]).toMatchObject({
      domain: 'acme.example',
      suggestedUrls: ['https://acme.example/', 'https://acme.example/pricing'],
    });
    const general = await research({ query: 'widget makers in Portugal' });
    expect((general.sourcePlan as Array<{ domain: string; rationale: string }>).map((p) => p.domain)).toEqual(['en.wikipedia.org']);
  });

  it('fails when no allowlisted domain fits, and refuses a payload with nothing to do', async () => {
    const empty = await research({ query: 'widget makers', __marketResearch: { allowPrivateHosts: false, allowedDomains: ['acme.example'] } });
    expect(empty.success).toBe(false);
    expect(empty.specialistContract.refusalReason).toBe('no allowlisted domain fits the query or scope, so no source plan could be derived');
    const nothing = await research({});
    expect(nothing).toMatchObject({ success: false, error: 'payload needs urls to fetch, or a query or scope to derive a source plan from' });
    // A payload of the wrong shape never reaches the lane: the worker refuses it with the schema's words.
    const badUrls = await defineLane('market-research', marketResearch).run({ urls: 'https://stripe.com' }, { workspaceRoot: '/srv/workspace', runId: null });
    expect(badUrls).toMatchObject({ success: false, error: 'payload refused: /urls must be array', specialistContract: { status: 'refused' } });
  });
});
