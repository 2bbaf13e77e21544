import pino from 'pino';
import { composeService } from '../../src/app.js';
import { systemClock } from '../../src/clock.js';
import { RATE_LIMIT_BUCKETS } from '../../src/config/schema.js';
import type { AppConfig, Role } from '../../src/config/types.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { RouteSpec } from '../../src/http/route-spec.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { testConfig } from './config.js';

/** What a test needs of a route of the table to call it: method, path and who may call it. */
export interface RouteEntry {
  method: RouteSpec['method'];
  path: string;
  /** `public`, `signed` (HMAC webhook) or the least role that may call it. */
  access: 'public' | 'signed' | Role;
  /** Names of the path parameters (`:runId` -> `runId`). */
  params: string[];
  /** Property names of the querystring schema, if it has one. */
  query: string[];
}

/** The alert webhook: signed, never a bearer route. Added when the table does not have it (yet). */
export const WEBHOOK: RouteEntry = { method: 'POST', path: '/webhook/alerts', access: 'signed', params: [], query: [] };

function entry(route: RouteSpec): RouteEntry {
  const access = route.access.kind === 'protected' ? route.access.role : route.access.kind;
  const params = [...route.path.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const properties = (route.schema.querystring as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
  return { method: route.method, path: route.path, access, params, query: Object.keys(properties) };
}

/**
 * The service's whole route table built over `store` with in-memory coordination, by the
 * composition root itself (nothing started): what test/http/route-table.test.ts checks and what
 * the route walkers below call.
 */
export function buildTestServiceRoutes(store: StateStore, config: AppConfig = testConfig()): RouteSpec[] {
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  return composeService({ config, logger: pino({ level: 'silent' }), clock: systemClock, store, coordination, metricsPort: null }).routes;
}

/**
 * Every route of the service's table, so a route added to the table later is covered by every
 * test that walks this list. The webhook is always included.
 */
export async function serviceRouteList(): Promise<RouteEntry[]> {
  const config = testConfig();
  const store = openStateStore(config.stateTarget);
  await store.open();
  try {
    const routes = buildTestServiceRoutes(store, config).map(entry);
    if (!routes.some((r) => r.method === WEBHOOK.method && r.path === WEBHOOK.path)) routes.push(WEBHOOK);
    return routes;
  } finally {
    await store.close();
  }
}

/** Every limiter bucket raised far above a test's load, so no answer is a 429. */
export function raisedLimitsForEveryBucket(): Record<string, { max: number; windowSeconds: number }> {
  return Object.fromEntries(RATE_LIMIT_BUCKETS.map((bucket) => [bucket, { max: 10_000_000, windowSeconds: 60 }]));
}
