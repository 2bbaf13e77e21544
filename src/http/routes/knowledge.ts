import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import type { KnowledgeService } from '../../knowledge/service.js';
import { adminExport, docsPublic, operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const Open = Type.Object({}, { additionalProperties: true });

const QueryBody = Type.Object(
  {
    query: Type.String({ minLength: 1, maxLength: 5000, description: 'Free text; ranked full-text search over doc chunks.' }),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    filter: Type.Optional(
      Type.Object(
        {
          paths: Type.Optional(
            Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
              maxItems: 100,
              description: 'Doc paths or folder prefixes (relative to docsPath) the results must fall under.',
            }),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const SummaryBody = Type.Object(
  {
    status: Type.Union([Type.Literal('ok'), Type.Literal('attention'), Type.Literal('empty')]),
    generatedAt: Type.String({ format: 'date-time' }),
    diagnostics: Type.Object(
      { freshness: Open, provenance: Open, contradictionSignals: Type.Array(Open), graphs: Open },
      { additionalProperties: true },
    ),
    runtime: Type.Object(
      { index: Open, coverage: Open, freshness: Open, signals: Open, graphs: Open, repairLoop: Type.Union([Open, Type.Null()]) },
      { additionalProperties: true },
    ),
  },
  { additionalProperties: true },
);

const QueryResult = Type.Object(
  {
    query: Type.String(),
    total: Type.Integer({ minimum: 0 }),
    results: Type.Array(
      Type.Object(
        { path: Type.String(), title: Type.String(), score: Type.Number(), heading: Type.String(), snippet: Type.String() },
        { additionalProperties: true },
      ),
    ),
    meta: Open,
    runtime: Open,
  },
  { additionalProperties: true },
);

const ExportBody = Type.Object(
  {
    exportedAt: Type.String({ format: 'date-time' }),
    docCount: Type.Integer({ minimum: 0 }),
    truncated: Type.Boolean(),
    docs: Type.Array(Type.Object({ path: Type.String(), content: Type.String() }, { additionalProperties: true })),
  },
  { additionalProperties: true },
);

/** The knowledge routes: public summary, operator query, admin export (docs/knowledge.md). */
export function knowledgeRoutes(deps: { knowledge: KnowledgeService }): RouteSpec[] {
  const { knowledge } = deps;
  const publicDocs = routeFamily({ tags: ['knowledge'], access: docsPublic });
  const writes = routeFamily({ tags: ['knowledge'], access: operatorWrite });
  const exports = routeFamily({ tags: ['knowledge'], access: adminExport });
  return [
    publicDocs.get('/api/knowledge/summary', {
      operationId: 'getKnowledgeSummary',
      summary: 'Knowledge index diagnostics (freshness, provenance, contradictions, graphs) and runtime facts',
      description: 'Deterministic diagnostics; doc paths are relative to the docs folder. Cached until the index changes.',
      cache: { tags: [CacheTags.knowledge] },
      schema: { response: { 200: SummaryBody } },
      handler: async () => ({ body: await knowledge.summary() }),
    }),
    writes.post('/api/knowledge/query', {
      operationId: 'queryKnowledge',
      summary: 'Ranked search over the docs with query-scoped diagnostics and repair-loop posture',
      cache: { tags: [CacheTags.knowledge] },
      schema: { body: QueryBody, response: { 200: QueryResult } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof QueryBody>>) => ({ body: await knowledge.query(ctx.body) }),
    }),
    exports.get('/api/knowledge/export', {
      operationId: 'exportKnowledge',
      summary: 'Every indexed doc with its path and content (configured secrets removed)',
      schema: { response: { 200: ExportBody } },
      handler: async () => ({ body: await knowledge.exportDocs() }),
    }),
  ];
}
