import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { allowedMethods } from '../../src/http/method-not-allowed.js';
import type { RouteSpec } from '../../src/http/route-spec.js';
import { buildServer } from '../../src/http/server.js';
import { createLogger } from '../../src/logging.js';
import { createMetrics } from '../../src/metrics.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir, testConfig } from '../support/config.js';
import { TEST_KEYS, bearer } from '../support/keys.js';
import { buildTestServiceRoutes, raisedLimitsForEveryBucket } from '../support/route-list.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

/** Headers whose value or presence depends on the moment or on how the body is framed, not on the route. */
const FRAMING_AND_TIME = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);

const headerNames = (res: Response) => [...res.headers.keys()].filter((name) => !FRAMING_AND_TIME.has(name)).sort();

/** The route's path with every parameter filled in. */
const concretePath = (path: string) => path.replace(/:(\w+)/g, 'probe-$1');

/**
 * The service's whole route table (as test/http/route-table.test.ts builds it) served in-process,
 * with every limiter bucket raised so no answer is a 429.
 */
describe('HTTP methods over the service route table', () => {
  let store: StateStore;
  let routes: RouteSpec[];
  let app: FastifyInstance;
  let url: string;

  beforeAll(async () => {
    const baseDir = tempDir('orch-methods-');
    const configPath = join(baseDir, 'orchestrator.config.json');
    writeFileSync(configPath, JSON.stringify({ rateLimits: raisedLimitsForEveryBucket() }));
    const config = testConfig({ ORCHESTRATOR_CONFIG: configPath }, baseDir);
    store = openStateStore(config.stateTarget);
    await store.open();
    routes = buildTestServiceRoutes(store, config);
    const coordination = new MemoryCoordination({ cacheMaxEntries: 1000, cacheMaxBytes: 10_000_000 });
    app = await buildServer({ config, coordination, logger: createLogger('silent'), metrics: createMetrics() }, routes);
    await app.listen({ host: '127.0.0.1', port: 0 });
    url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  }, 60_000);
  afterAll(async () => {
    await app?.close();
    await store?.close();
  });

  it('answers HEAD on every GET route with the GET’s status and headers, the same access rules, and no body', async () => {
    const gets = routes.filter((route) => route.method === 'GET');
    expect(gets.length).toBeGreaterThan(20);
    const findings: string[] = [];
    for (const route of gets) {
      const path = concretePath(route.path);
      for (const [credential, headers] of [
        ['no key', {}],
        ['admin', bearer(TEST_KEYS.admin)],
      ] as const) {
        // An event stream never ends by itself: its head is compared, then the client leaves.
        const leave = new AbortController();
        const get = await fetch(`${url}${path}`, { headers, signal: leave.signal });
        if (route.produces === 'text/event-stream') leave.abort();
        else await get.arrayBuffer();
        const head = await fetch(`${url}${path}`, { method: 'HEAD', headers });
        const cell = `${route.path} as ${credential}`;
        if (head.status !== get.status) findings.push(`${cell}: HEAD ${head.status}, GET ${get.status}`);
        if ((await head.text()) !== '') findings.push(`${cell}: HEAD sent a body`);
        if (head.headers.get('content-type') !== get.headers.get('content-type')) findings.push(`${cell}: content-type differs`);
        if (headerNames(head).join() !== headerNames(get).join()) {
          findings.push(`${cell}: headers ${headerNames(head).join()} vs GET ${headerNames(get).join()}`);
        }
        if (head.headers.get('x-request-id') === null) findings.push(`${cell}: no X-Request-Id`);
      }
    }
    expect(findings).toEqual([]);
  }, 120_000);

  it('answers a method a path does not serve with 405, an Allow header listing its methods, and the error shape', async () => {
    const served = new Map<string, string[]>();
    for (const route of routes) served.set(route.path, [...(served.get(route.path) ?? []), route.method]);
    const findings: string[] = [];
    for (const [path, methods] of served) {
      const allow = allowedMethods(methods).join(', ');
      const refused = ['PUT', ...['GET', 'POST', 'PATCH', 'DELETE'].filter((m) => !methods.includes(m))];
      if (!methods.includes('GET')) refused.push('HEAD');
      for (const method of refused) {
        const res = await fetch(`${url}${concretePath(path)}`, { method });
        const text = await res.text();
        const cell = `${method} ${path}`;
        if (res.status !== 405) findings.push(`${cell}: ${res.status}`);
        if (res.headers.get('allow') !== allow) findings.push(`${cell}: Allow ${res.headers.get('allow')}, expected ${allow}`);
        if (method === 'HEAD') continue;
        const body = JSON.parse(text);
        if (body.error?.code !== 'method_not_allowed' || body.error.requestId !== res.headers.get('x-request-id')) {
          findings.push(`${cell}: body ${text}`);
        }
      }
    }
    expect(findings).toEqual([]);
  }, 120_000);

  it('answers GET on a POST-only route with 405 and Allow: POST, before authentication', async () => {
    const res = await fetch(`${url}/api/tasks/trigger`);
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    const body = await readJson(res);
    expect(body.error).toMatchObject({ code: 'method_not_allowed', message: 'GET is not allowed on /api/tasks/trigger; use POST' });
  });

  it('keeps an unknown path a 404, whatever the method', async () => {
    for (const method of ['GET', 'HEAD', 'POST', 'DELETE']) {
      const res = await fetch(`${url}/api/no-such-route`, { method });
      expect(res.status, method).toBe(404);
      expect(res.headers.get('allow'), method).toBeNull();
      if (method !== 'HEAD') expect((await readJson(res)).error.code).toBe('not_found');
    }
  });
});

describe('HEAD shares what the GET route has', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ configFile: { rateLimits: { 'health-public': { max: 2, windowSeconds: 60 } } } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('counts HEAD against the route’s rate limit', async () => {
    const statuses = [];
    for (const method of ['HEAD', 'HEAD', 'GET', 'HEAD']) statuses.push((await fetch(`${h.url}/health`, { method })).status);
    expect(statuses).toEqual([200, 200, 429, 429]);
    const limited = await fetch(`${h.url}/health`, { method: 'HEAD' });
    expect(limited.headers.get('retry-after')).not.toBeNull();
  });

  it('answers HEAD of a protected route without a key with 401 and the Bearer challenge', async () => {
    const res = await fetch(`${h.url}/api/auth/me`, { method: 'HEAD' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
  });

  it('shares the GET’s response cache entries: a HEAD after a GET is a hit and runs no handler', async () => {
    const first = await readJson(await fetch(`${h.url}/test/public-counter`));
    const head = await fetch(`${h.url}/test/public-counter`, { method: 'HEAD' });
    expect(head.headers.get('x-svc-cache')).toBe('hit');
    expect(head.headers.get('cache-control')).toBe('public, max-age=12');
    const again = await readJson(await fetch(`${h.url}/test/public-counter`));
    expect(again.handlerRuns).toBe(first.handlerRuns);
  });
});
