import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../src/http/route-spec.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { testConfig } from '../support/config.js';
import { buildTestServiceRoutes } from '../support/route-list.js';

type Expected =
  | { role: 'public'; bucket: string; cached: boolean }
  | { role: 'viewer' | 'operator' | 'admin'; bucket: string; cached: boolean; companionView?: boolean }
  | { role: 'signed'; bucket: 'abuse-guard'; cached: false };

const v = (cached: boolean): Expected => ({ role: 'viewer', bucket: 'viewer-read', cached });
const companion = (role: 'viewer' | 'operator'): Expected => ({ role, bucket: 'viewer-read', cached: true, companionView: true });
const write: Expected = { role: 'operator', bucket: 'operator-write', cached: false };
const exportRoute: Expected = { role: 'admin', bucket: 'admin-export', cached: false };

/**
 * The spec's route tables (Endpoints, Limits, response cache list) with the gaps decided in
 * docs/decisions.md: routes the spec calls "protected" without a role are viewer reads, and write
 * routes without a named bucket use operator-write.
 */
const SPEC_ROUTES: Record<string, Expected> = {
  'GET /health': { role: 'public', bucket: 'health-public', cached: false },
  'GET /api/persistence/health': { role: 'public', bucket: 'health-public', cached: true },
  'GET /api/knowledge/summary': { role: 'public', bucket: 'docs-public', cached: true },
  'GET /api/openapi.json': { role: 'public', bucket: 'docs-public', cached: true },
  'GET /api/command-center/overview': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/command-center/control': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/command-center/demand': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/command-center/demand-live': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/milestones/latest': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/milestones/dead-letter': { role: 'public', bucket: 'proof-public', cached: true },
  'GET /api/auth/me': v(false),
  'GET /api/dashboard/overview': v(true),
  'GET /api/health/extended': v(true),
  'GET /api/runtime/facts': v(true),
  'GET /api/companion/overview': companion('viewer'),
  'GET /api/companion/catalog': companion('viewer'),
  'GET /api/companion/incidents': companion('viewer'),
  'GET /api/companion/runs': companion('viewer'),
  'GET /api/companion/approvals': companion('operator'),
  'GET /api/tasks/catalog': v(true),
  'POST /api/tasks/trigger': write,
  'GET /api/tasks/runs': v(true),
  'GET /api/tasks/runs/:runId': v(true),
  'POST /api/tasks/runs/:runId/rerun': write,
  'GET /api/approvals/:id': { role: 'operator', bucket: 'viewer-read', cached: false },
  'GET /api/tasks/runs/:runId/logs': { role: 'operator', bucket: 'viewer-read', cached: false },
  // Run control (DECISIONS.md, "Run control, front doors and models").
  'POST /api/tasks/runs/:runId/cancel': write,
  // Many runs (DECISIONS.md, "Platform"): bulk actions under a path no run id can take.
  'POST /api/tasks/bulk/cancel': write,
  'POST /api/tasks/bulk/rerun': write,
  // Live events (server-sent events), never cached.
  'GET /api/tasks/runs/:runId/events': v(false),
  'GET /api/events': v(false),
  'GET /api/approvals/pending': { role: 'operator', bucket: 'viewer-read', cached: true },
  'POST /api/approvals/:id/decision': write,
  'GET /api/incidents': v(true),
  'GET /api/incidents/:id': v(true),
  'GET /api/incidents/:id/history': v(true),
  'POST /api/incidents/:id/acknowledge': write,
  'POST /api/incidents/:id/owner': write,
  'POST /api/incidents/:id/remediate': write,
  'GET /api/agents/overview': v(true),
  'GET /api/memory/recall': v(true),
  'POST /api/knowledge/query': { role: 'operator', bucket: 'operator-write', cached: true },
  'GET /api/knowledge/export': exportRoute,
  'GET /api/persistence/summary': v(true),
  'GET /api/persistence/historical': v(false),
  'GET /api/persistence/export': exportRoute,
  'GET /api/skills/registry': v(true),
  'GET /api/skills/policy': v(true),
  'GET /api/skills/telemetry': v(true),
  'GET /api/skills/audit': v(true),
  'GET /api/business/overview': v(false),
  'GET /api/business/operations': v(false),
  'GET /api/business/candidates': v(false),
  'GET /api/business/cycles': v(false),
  'GET /api/business/cycles/:cycleId': v(false),
  'POST /api/business/cycle/trigger': write,
  'POST /api/business/cycles/:cycleId/retry': write,
  'POST /api/business/scheduler': write,
  'POST /webhook/alerts': { role: 'signed', bucket: 'abuse-guard', cached: false },
  // Run control (DECISIONS.md, "Run control, front doors and models"): schedules answer as of now, uncached.
  'GET /api/schedules': v(false),
  'GET /api/queue': v(false),
  // The console's overview charts (DECISIONS.md, "Run control"): one bounded, cached aggregate.
  'GET /api/dashboard/run-stats': v(true),
  'POST /api/schedules': write,
  'GET /api/schedules/:id': v(false),
  'PATCH /api/schedules/:id': write,
  'DELETE /api/schedules/:id': write,
  // Flows (DECISIONS.md, "Platform"): step states as of now, uncached.
  'POST /api/flows': write,
  'GET /api/flows': v(false),
  'GET /api/flows/:id': v(false),
  'GET /api/flows/:id/events': v(false),
  'POST /api/flows/:id/cancel': write,
  'POST /api/flows/:id/rerun': write,
  // Alerts (DECISIONS.md, "Platform"): what fired and where it went, as of now, uncached.
  'GET /api/alerts': v(false),
  'GET /api/alerts/rules': v(false),
  'GET /api/alerts/dead-letters': v(false),
  // Operator task types (docs/task-types.md): the folder read again on this instance, by an admin.
  'POST /api/task-types/reload': { role: 'admin', bucket: 'operator-write', cached: false },
  // Limits (docs/queue.md): config `limits` read again on this instance, by an admin.
  'POST /api/limits/reload': { role: 'admin', bucket: 'operator-write', cached: false },
  // Scoped tokens (DECISIONS.md, "Platform"): issued, listed and revoked by operators, uncached.
  'POST /api/tokens': write,
  'GET /api/tokens': { role: 'operator', bucket: 'viewer-read', cached: false },
  'DELETE /api/tokens/:tokenId': write,
  // Approval links (DECISIONS.md, "Platform"): made by operators.
  'POST /api/approvals/:id/links': write,
};

/** Routes the delivered issues (foundation, task runtime) must have registered. */
const REQUIRED_NOW = [
  'GET /health',
  'GET /api/persistence/health',
  'GET /api/openapi.json',
  'GET /api/auth/me',
  'GET /api/tasks/catalog',
  'POST /api/tasks/trigger',
  'GET /api/tasks/runs',
  'GET /api/tasks/runs/:runId',
  'GET /api/approvals/pending',
  'POST /api/approvals/:id/decision',
  'GET /api/command-center/overview',
  'GET /api/command-center/control',
  'GET /api/command-center/demand',
  'GET /api/command-center/demand-live',
  'GET /api/milestones/latest',
  'GET /api/milestones/dead-letter',
  'GET /api/business/overview',
  'GET /api/business/operations',
  'GET /api/business/candidates',
  'GET /api/business/cycles',
  'GET /api/business/cycles/:cycleId',
  'POST /api/business/cycle/trigger',
  'POST /api/business/cycles/:cycleId/retry',
  'POST /api/business/scheduler',
];

function actual(route: RouteSpec): Expected {
  const cached = route.cache !== undefined;
  if (route.access.kind === 'public') return { role: 'public', bucket: route.access.bucket, cached };
  if (route.access.kind === 'signed') return { role: 'signed', bucket: 'abuse-guard', cached: false };
  return {
    role: route.access.role,
    bucket: route.access.bucket,
    cached,
    ...(route.access.companionView ? { companionView: true } : {}),
  };
}

describe('the service route table against the spec', () => {
  let store: StateStore;
  let routes: RouteSpec[];

  beforeAll(async () => {
    const config = testConfig();
    store = openStateStore(config.stateTarget);
    await store.open();
    routes = buildTestServiceRoutes(store, config);
  });
  afterAll(async () => {
    await store?.close();
  });

  it('registers only routes of the spec, each with the spec role, limiter bucket and cache setting', () => {
    for (const route of routes) {
      const key = `${route.method} ${route.path}`;
      expect(SPEC_ROUTES[key], `${key} is not a route of the spec`).toBeDefined();
      expect(actual(route), key).toEqual(SPEC_ROUTES[key]);
    }
  });

  it('registers every route of the delivered issues', () => {
    const registered = new Set(routes.map((r) => `${r.method} ${r.path}`));
    for (const key of REQUIRED_NOW) expect(registered.has(key), key).toBe(true);
  });

  it('gives each route a distinct operation id and a documented success response', () => {
    expect(new Set(routes.map((r) => r.operationId)).size).toBe(routes.length);
    for (const route of routes) expect(Object.keys(route.schema.response).length, route.path).toBeGreaterThan(0);
  });

  it('keeps the spec numbers for every limiter bucket by default', () => {
    const { rateLimits } = testConfig();
    expect(rateLimits['health-public']).toEqual({ max: 1000, windowSeconds: 60 });
    expect(rateLimits['docs-public']).toEqual({ max: 30, windowSeconds: 60 });
    expect(rateLimits['abuse-guard']).toEqual({ max: 300, windowSeconds: 60 });
    expect(rateLimits['viewer-read']).toEqual({ max: 120, windowSeconds: 60 });
    expect(rateLimits['operator-write']).toEqual({ max: 30, windowSeconds: 60 });
    expect(rateLimits['admin-export']).toEqual({ max: 10, windowSeconds: 60 });
  });
});
