import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/config/types.js';
import { tempDir } from '../support/config.js';
import { bodyText } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { raisedLimitsForEveryBucket, serviceRouteList, type RouteEntry } from '../support/route-list.js';
import { STAND_IN_AGENTS_DIR } from '../support/paths.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

/** 10,000 by default; FUZZ_CASES changes it (CI keeps the default, bounded by the time limit below). */
const CASES = Number(process.env.FUZZ_CASES ?? 10_000);
const CONCURRENCY = Number(process.env.FUZZ_CONCURRENCY ?? 16);

/**
 * mulberry32: a 32-bit generator computed in integer arithmetic. (The previous LCG multiplied in
 * doubles past 2^53, lost its low bits and fell into short cycles: 818 of 2,000 requests were
 * distinct.)
 */
function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const TYPES = ['summarize-content', 'doc-sync', 'security-audit', 'build-refactor', 'agent-deploy', 'heartbeat', 'startup', '', 'nope', 'normalize-data'];
const STRINGS = ['../etc', '/etc/passwd', 'approval-replay:x', '__proto__', 'constructor', '\u0000', '😀', 'ok', '%00', '..%2F..%2F', ' ', 'a'.repeat(500)];
const OBJECT_KEYS = ['content', 'scope', 'idempotencyKey', 'requiresApproval', '__internal', 'approvedFromTaskId', 'format', 'constraints', 'changes', 'agentName', 'records', 'schema', 'decision', 'reason', 'owner', 'note', 'query', 'limit', 'alerts', 'status', '__proto__'];

function pick<T>(random: () => number, items: readonly T[]): T {
  return items[Math.floor(random() * items.length)]!;
}

function fuzzValue(random: () => number, depth = 0): unknown {
  switch (Math.floor(random() * (depth > 2 ? 6 : 9))) {
    case 0:
      return null;
    case 1:
      return random() < 0.5;
    case 2:
      return Math.floor(random() * 1e6) * (random() < 0.5 ? -1 : 1);
    case 3:
      return 'x'.repeat(Math.floor(random() * 300));
    case 4:
      return pick(random, STRINGS);
    case 5:
      return random() * 1e308;
    case 6:
      return Array.from({ length: Math.floor(random() * 4) }, () => fuzzValue(random, depth + 1));
    default: {
      const obj: Record<string, unknown> = {};
      for (let i = 0; i < Math.floor(random() * 5); i += 1) obj[pick(random, OBJECT_KEYS)] = fuzzValue(random, depth + 1);
      return obj;
    }
  }
}

function fuzzScalar(random: () => number): string {
  const r = random();
  if (r < 0.4) return pick(random, STRINGS);
  if (r < 0.7) return String(Math.floor(random() * 1e9) - 1000);
  return Math.floor(random() * 2 ** 32).toString(36);
}

interface FuzzRequest {
  route: RouteEntry;
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** The role the bearer key carries, or null when the request carries no valid key. */
  role: Role | null;
}

const AUTHS: { header: string | null; role: Role | null }[] = [
  { header: `Bearer ${TEST_KEYS.viewer}`, role: 'viewer' },
  { header: `Bearer ${TEST_KEYS.operator}`, role: 'operator' },
  { header: `Bearer ${TEST_KEYS.admin}`, role: 'admin' },
  { header: `Bearer ${TEST_KEYS.expired}`, role: null },
  { header: `Bearer ${TEST_KEYS.inactive}`, role: null },
  { header: null, role: null },
  { header: 'Bearer', role: null },
  { header: 'Basic abc', role: null },
  { header: `Bearer ${'a'.repeat(5000)}`, role: null },
  { header: 'bearer  x', role: null },
  { header: '', role: null },
];

function triggerBody(random: () => number): string {
  const shape = random();
  if (shape < 0.1) return pick(random, ['{', '[]', 'null', '"str"', '{"type":', '', '\u0000\u0001', '{"type":"summarize-content","payload":{"content":"x"}}}']);
  if (shape < 0.2) return JSON.stringify(fuzzValue(random));
  return JSON.stringify({
    type: random() < 0.9 ? pick(random, TYPES) : fuzzValue(random),
    ...(random() < 0.9 ? { payload: fuzzValue(random) } : {}),
    ...(random() < 0.1 ? { extra: fuzzValue(random) } : {}),
  });
}

function buildRequest(random: () => number, route: RouteEntry, base: string, serial: number): FuzzRequest {
  let path = route.path;
  for (const name of route.params) path = path.replace(`:${name}`, encodeURIComponent(random() < 0.2 ? `run-${serial}` : fuzzScalar(random)));
  const query = new URLSearchParams();
  for (const name of route.query) if (random() < 0.4) query.set(name, fuzzScalar(random));
  if (random() < 0.15) query.set(pick(random, ['junk', 'limit', 'offset', '__proto__', 'cursor']), fuzzScalar(random));
  const qs = query.toString();
  const auth = pick(random, AUTHS);
  const headers: Record<string, string> = {};
  if (auth.header !== null) headers.authorization = auth.header;
  if (random() < 0.2) headers['x-request-id'] = pick(random, ['ok-id', 'bad id with spaces', 'x'.repeat(300), '../../']);
  if (random() < 0.1) headers.origin = pick(random, ['http://evil.test', 'null', 'http://127.0.0.1:1']);
  if (route.path === '/webhook/alerts' && random() < 0.5) {
    headers['x-signature'] = pick(random, ['sha256=00', 'sha256=', 'garbage', `sha256=${'f'.repeat(64)}`]);
    headers['x-timestamp'] = pick(random, ['0', String(Math.floor(random() * 2e9)), 'soon']);
  }
  let body: string | undefined;
  if (route.method === 'POST' || route.method === 'PATCH') {
    headers['content-type'] =
      random() < 0.85 ? 'application/json' : pick(random, ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1', 'multipart/form-data']);
    body = route.path === '/api/tasks/trigger' ? triggerBody(random) : random() < 0.1 ? pick(random, ['{', '', 'null', '[]']) : JSON.stringify(fuzzValue(random));
  }
  // A serial number in a header makes every request distinct on the wire without changing its meaning.
  headers['x-fuzz-case'] = String(serial);
  return { route, method: route.method, url: `${base}${path}${qs ? `?${qs}` : ''}`, headers, body, role: auth.role };
}

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** What is wrong with one answer, if anything. */
function problems(request: FuzzRequest, status: number, text: string, requestId: string | null): string[] {
  const out: string[] = [];
  const { route } = request;
  const label = `${request.method} ${request.url.replace(/^http:\/\/[^/]+/, '').slice(0, 160)}`;
  if (status >= 500) out.push(`${label}: ${status} ${text.slice(0, 200)}`);
  if (!requestId) out.push(`${label}: no X-Request-Id`);
  if (status >= 400) {
    try {
      const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown; requestId?: unknown } };
      if (typeof parsed.error?.code !== 'string' || typeof parsed.error.message !== 'string' || typeof parsed.error.requestId !== 'string') {
        out.push(`${label}: bad error shape ${text.slice(0, 200)}`);
      }
    } catch {
      out.push(`${label}: non-JSON error body ${text.slice(0, 200)}`);
    }
  }
  if (status >= 200 && status < 300) {
    if (route.access === 'signed') out.push(`${label}: unsigned webhook answered ${status}`);
    else if (route.access !== 'public' && (request.role === null || RANK[request.role] < RANK[route.access])) {
      out.push(`${label}: ${status} for ${request.role ?? 'no valid key'} on a ${route.access} route`);
    }
  }
  return out;
}

describe('fuzzed requests on every route family and the webhook', () => {
  let service: ServiceProcess;
  let routes: RouteEntry[];
  beforeAll(async () => {
    routes = await serviceRouteList();
    service = await startService({
      baseDir: tempDir(),
      config: {
        agentsDir: STAND_IN_AGENTS_DIR,
        schedulerEnabled: false,
        logLevel: 'warn',
        rateLimits: raisedLimitsForEveryBucket(),
      },
      env: { LOG_LEVEL: 'warn' },
    });
  }, 120_000);
  afterAll(async () => {
    await service?.kill();
  });

  it(`answers ${CASES} distinct fuzzed requests, ${CONCURRENCY} at a time, without a 5xx, a crash, a broken error shape or a 2xx below the route's role`, async () => {
    const seed = Number(process.env.FUZZ_SEED ?? 4242);
    const random = rng(seed);
    // Every family gets its share: requests cycle through the routes, the rest is random.
    const signature = (r: FuzzRequest) => JSON.stringify([r.method, r.url, { ...r.headers, 'x-fuzz-case': '' }, r.body]);
    const seen = new Set<string>();
    const requests = Array.from({ length: CASES }, (_, i) => {
      const route = i < routes.length * 20 ? routes[i % routes.length]! : pick(random, routes);
      let request = buildRequest(random, route, service.url, i);
      // Routes with few inputs (GET /health) soon repeat themselves: a repeat is drawn again with
      // a junk query parameter, which the service must ignore or refuse like any other.
      while (seen.has(signature(request))) {
        request = buildRequest(random, route, service.url, i);
        const url = new URL(request.url);
        url.searchParams.set(pick(random, ['x', 'limit', 'offset', 'cursor', 'junk']), fuzzScalar(random));
        request.url = url.toString();
      }
      seen.add(signature(request));
      return request;
    });
    // Distinct without the serial header: the generator does not repeat itself.
    expect(new Set(requests.map(signature)).size, `seed ${seed}`).toBe(CASES);

    const failures: string[] = [];
    const statusesByFamily = new Map<string, Set<number>>();
    let next = 0;
    const lanes = Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests.length) {
        const request = requests[next++]!;
        let status = 0;
        let text = '';
        let requestId: string | null = null;
        try {
          const res = await fetch(request.url, { method: request.method, headers: request.headers, body: request.body });
          status = res.status;
          text = await bodyText(res);
          requestId = res.headers.get('x-request-id');
        } catch (err) {
          failures.push(`${request.method} ${request.url}: connection failed (${(err as Error).message})`);
          continue;
        }
        failures.push(...problems(request, status, text, requestId));
        const family = request.route.path.split('/').slice(0, 3).join('/');
        statusesByFamily.set(family, (statusesByFamily.get(family) ?? new Set()).add(status));
      }
    });
    await Promise.all(lanes);

    expect(failures.slice(0, 20), `seed ${seed}: ${failures.length} problems`).toEqual([]);
    // Every route family (and the webhook) was reached.
    const families = new Set(routes.map((r) => r.path.split('/').slice(0, 3).join('/')));
    for (const family of families) expect(statusesByFamily.has(family), family).toBe(true);
    const health = await fetch(`${service.url}/health`);
    expect(health.status).toBe(200);
    expect(service.child.exitCode).toBeNull();
  }, 600_000);
});
