import Type, { type Static } from 'typebox';
import type { Coordination } from '../../coordination/types.js';
import type { StateStore, StoreHealth } from '../../store/types.js';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { coordinationView } from '../../aggregates/persistence-view.js';
import { HISTORICAL_COLLECTIONS } from '../../persistence/collections.js';
import { exportNdjson } from '../../persistence/export.js';
import { historicalPage } from '../../persistence/historical.js';
import { activeStoreOf, persistenceSummary } from '../../persistence/summary.js';
import { adminExport, healthPublic, routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const PersistenceHealth = Type.Object({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')]),
  activeStore: Type.Union([Type.Literal('file'), Type.Literal('sql'), Type.Literal('docdb'), Type.Literal('postgres')]),
  store: Type.Object({
    target: Type.String({ description: 'the state file by name, `sql:<file name>`, `postgres:<host>/<db>` or `docdb:<key>`; never a credential or the server\'s absolute path' }),
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

/** GET /api/persistence/health: public persistence truth (active store, its health, coordination). */
export function persistenceHealthRoutes(deps: {
  storeHealth: () => Promise<StoreHealth>;
  storeKind: () => StateStore['kind'];
  coordination: Coordination;
}): RouteSpec[] {
  return [
    routeFamily({ tags: ['persistence'], access: healthPublic }).get('/api/persistence/health', {
      operationId: 'getPersistenceHealth',
      summary: 'Active state store, its health and the coordination store',
      description: '`status` is healthy when the state store reports ok, else degraded.',
      cache: { tags: [CacheTags.persistence] },
      schema: { response: { 200: PersistenceHealth } },
      handler: async () => {
        const [health, coordination] = await Promise.all([deps.storeHealth(), deps.coordination.status()]);
        return {
          body: {
            status: health.status === 'ok' ? 'healthy' : 'degraded',
            activeStore: activeStoreOf(deps.storeKind(), health.target),
            store: { target: health.target, status: health.status, detail: health.detail, collections: health.collections },
            coordination: coordinationView(coordination),
            checkedAt: new Date().toISOString(),
          },
        };
      },
    }),
  ];
}

const CoordinationObject = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('degraded')]),
  store: Type.Union([Type.Literal('kvstore'), Type.Literal('memory')]),
  redisConfigured: Type.Boolean(),
  redisReachable: Type.Boolean(),
  detail: Type.String(),
});

const PersistenceSummarySchema = Type.Object({
  status: Type.Union([Type.Literal('healthy'), Type.Literal('degraded')]),
  activeStore: Type.Union([Type.Literal('file'), Type.Literal('sql'), Type.Literal('docdb'), Type.Literal('postgres')]),
  store: Type.Object({
    target: Type.String(),
    status: Type.Union([Type.Literal('ok'), Type.Literal('degraded'), Type.Literal('down')]),
    detail: Type.String(),
    shared: Type.Boolean({ description: 'true when several instances share the store (PostgreSQL)' }),
  }),
  collections: Type.Record(Type.String(), Type.Integer({ minimum: 0 })),
  runs: Type.Object({
    total: Type.Integer(),
    byStatus: Type.Record(Type.String(), Type.Integer()),
    ready: Type.Integer(),
    held: Type.Integer(),
    internal: Type.Integer(),
  }),
  state: Type.Object({
    lastStartedAt: Type.Union([Type.String(), Type.Null()]),
    tasksProcessed: Type.Integer(),
    lists: Type.Record(Type.String(), Type.Integer()),
    hasNotes: Type.Boolean(),
  }),
  coordination: CoordinationObject,
  checkedAt: Type.String({ format: 'date-time' }),
});

const HistoricalQuery = Type.Object(
  {
    collection: Type.Optional(Type.Union(HISTORICAL_COLLECTIONS.map((c) => Type.Literal(c)), { default: 'runs' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);
type HistoricalQueryT = Static<typeof HistoricalQuery>;

const HistoricalPageSchema = Type.Object({
  collection: Type.String(),
  total: Type.Integer({ minimum: 0 }),
  limit: Type.Integer(),
  offset: Type.Integer(),
  items: Type.Array(Type.Unknown(), { description: 'newest first; runs in their short history form (no payload or result)' }),
});

const ExportLineSchema = Type.String({
  description:
    'NDJSON: a `header` line (format, version, exportedAt, store), one `record` line per record ' +
    '(collection, id for runs and documents, record), and an `end` line with the count per collection',
});

/** Summary, paged history and the streamed export of what the state store holds. */
export function persistenceRoutes(deps: { store: StateStore; coordination: Coordination; now: () => Date }): RouteSpec[] {
  const reads = routeFamily({ tags: ['persistence'], access: viewerRead });
  const exports = routeFamily({ tags: ['persistence'], access: adminExport });
  return [
    reads.get('/api/persistence/summary', {
      operationId: 'getPersistenceSummary',
      summary: 'What the state store holds: collections, runs by status, state document, coordination',
      cache: { tags: [CacheTags.persistence, CacheTags.runs] },
      schema: { response: { 200: PersistenceSummarySchema } },
      handler: async () => ({ body: await persistenceSummary(deps.store, () => deps.coordination.status(), deps.now()) }),
    }),
    reads.get('/api/persistence/historical', {
      operationId: 'getPersistenceHistorical',
      summary: 'One page of a historical collection, newest first',
      description: `collection: ${HISTORICAL_COLLECTIONS.join(', ')} (default runs).`,
      schema: { querystring: HistoricalQuery, response: { 200: HistoricalPageSchema } },
      handler: async (ctx: ProtectedContext<HistoricalQueryT>) => {
        const { collection = 'runs', limit = 50, offset = 0 } = ctx.query;
        return { body: await historicalPage(deps.store, collection, limit, offset) };
      },
    }),
    exports.get('/api/persistence/export', {
      operationId: 'exportPersistence',
      summary: 'Every record of the state store, streamed as NDJSON',
      description: 'Streamed page by page: the service never holds the whole state in memory to answer.',
      produces: 'application/x-ndjson',
      schema: { response: { 200: ExportLineSchema } },
      handler: async () => {
        const exportedAt = deps.now();
        return {
          body: undefined,
          headers: { 'Content-Disposition': `attachment; filename="state-export-${exportedAt.toISOString().replace(/[:.]/g, '-')}.ndjson"` },
          stream: { contentType: 'application/x-ndjson; charset=utf-8', chunks: exportNdjson(deps.store, exportedAt) },
        };
      },
    }),
  ];
}
