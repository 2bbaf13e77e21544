import Type from 'typebox';
import type { Coordination } from '../../coordination/types.js';
import type { StateStore, StoreHealth } from '../../store/types.js';
import { CacheTags } from '../../domain/cache-invalidation.js';
import type { RouteSpec } from '../route-spec.js';

const PersistenceHealth = Type.Object({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')]),
  activeStore: Type.Union([Type.Literal('file'), Type.Literal('sql'), Type.Literal('docdb'), Type.Literal('postgres')]),
  store: Type.Object({
    target: Type.String({ description: 'file path, `sql:<path>`, `postgres:<host>/<db>` or `docdb:<key>`; never a credential' }),
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
    detail: Type.String(),
    collections: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  }),
  coordination: Type.Object({
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
    store: Type.Union([Type.Literal('kvstore'), Type.Literal('memory')]),
    redisConfigured: Type.Boolean(),
    redisReachable: Type.Boolean(),
    detail: Type.String(),
  }),
  checkedAt: Type.String({ format: 'date-time' }),
});

/** The document target (`docdb:<key>`) is served by the PostgreSQL driver but reported as its own kind. */
function activeStoreOf(kind: StateStore['kind'], health: StoreHealth): StateStore['kind'] | 'docdb' {
  return health.target.startsWith('docdb:') ? 'docdb' : kind;
}

/** GET /api/persistence/health: public persistence truth (active store, its health, coordination). */
export function persistenceHealthRoutes(deps: {
  storeHealth: () => Promise<StoreHealth>;
  storeKind: () => StateStore['kind'];
  coordination: Coordination;
}): RouteSpec[] {
  return [
    {
      method: 'GET',
      path: '/api/persistence/health',
      operationId: 'getPersistenceHealth',
      summary: 'Active state store, its health and the coordination store',
      description: '`status` is healthy when the state store reports ok, else degraded.',
      tags: ['persistence'],
      access: { kind: 'public', bucket: 'health-public' },
      cache: { tags: [CacheTags.persistence] },
      schema: { response: { 200: PersistenceHealth } },
      handler: async () => {
        const [health, coordination] = await Promise.all([deps.storeHealth(), deps.coordination.status()]);
        return {
          body: {
            status: health.status === 'ok' ? 'healthy' : 'degraded',
            activeStore: activeStoreOf(deps.storeKind(), health),
            store: { target: health.target, status: health.status, detail: health.detail, collections: health.collections },
            coordination: {
              status: coordination.status,
              store: coordination.store,
              redisConfigured: coordination.redisConfigured,
              redisReachable: coordination.redisReachable,
              detail: coordination.detail,
            },
            checkedAt: new Date().toISOString(),
          },
        };
      },
    },
  ];
}
