import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/config/types.js';
import { bodyText } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { raisedLimitsForEveryBucket, serviceRouteList, type RouteEntry } from '../support/route-list.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Each credential a caller can present, and the role it really carries (null: none). */
const CREDENTIALS: { name: string; header: string | null; role: Role | null }[] = [
  { name: 'no token', header: null, role: null },
  { name: 'bad token', header: 'Bearer not-a-key-of-this-service', role: null },
  { name: 'expired', header: `Bearer ${TEST_KEYS.expired}`, role: null },
  { name: 'inactive', header: `Bearer ${TEST_KEYS.inactive}`, role: null },
  { name: 'viewer', header: `Bearer ${TEST_KEYS.viewer}`, role: 'viewer' },
  { name: 'operator', header: `Bearer ${TEST_KEYS.operator}`, role: 'operator' },
  { name: 'admin', header: `Bearer ${TEST_KEYS.admin}`, role: 'admin' },
];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/** The route's path with every parameter filled (`:runId` -> `matrix-runId`). */
function concretePath(route: RouteEntry): string {
  return route.params.reduce((path, name) => path.replace(`:${name}`, `matrix-${name}`), route.path);
}

/**
 * Every route of the table (built like test/http/route-table.test.ts, so a route added later is
 * in the matrix without touching this file) x every credential, against the built service.
 */
describe('authorization matrix: every route x every credential', () => {
  let routes: RouteEntry[];
  let running: RuntimeService;
  beforeAll(async () => {
    routes = await serviceRouteList();
    running = await startRuntimeService({ rateLimits: raisedLimitsForEveryBucket(), logLevel: 'warn' });
  }, 120_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  it('answers no 2xx below the route role, 401 without a valid key, 403 for a lower role, and never a 5xx', async () => {
    const findings: string[] = [];
    let cells = 0;
    for (const route of routes) {
      for (const credential of CREDENTIALS) {
        const headers: Record<string, string> = {};
        if (credential.header) headers.authorization = credential.header;
        const hasBody = route.method === 'POST' || route.method === 'PATCH';
        if (hasBody) headers['content-type'] = 'application/json';
        const res = await fetch(`${running.service.url}${concretePath(route)}`, {
          method: route.method,
          headers,
          body: hasBody ? '{}' : undefined,
        });
        await bodyText(res, 0);
        cells += 1;
        const cell = `${route.method} ${route.path} as ${credential.name}: ${res.status}`;
        if (res.status >= 500) findings.push(`${cell} (5xx)`);
        const ok = res.status >= 200 && res.status < 300;
        if (route.access === 'public') continue;
        if (route.access === 'signed') {
          // The webhook takes no bearer key: unsigned, every credential is refused.
          if (ok) findings.push(`${cell} (unsigned webhook accepted)`);
          continue;
        }
        if (credential.role === null) {
          if (res.status !== 401) findings.push(`${cell} (expected 401)`);
        } else if (RANK[credential.role] < RANK[route.access]) {
          if (res.status !== 403) findings.push(`${cell} (expected 403 below ${route.access})`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(cells).toBe(routes.length * CREDENTIALS.length);
    // The matrix covers the table, not a sample of it.
    expect(routes.filter((r) => r.access === 'operator').length).toBeGreaterThan(0);
    expect(routes.filter((r) => r.access === 'viewer').length).toBeGreaterThan(0);
  }, 120_000);
});
