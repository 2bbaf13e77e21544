import Type, { type TSchema } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { buildOpenApiDocument, type OpenApiInfo } from '../openapi.js';
import { docsPublic, routeFamily, type RouteSpec } from '../route-spec.js';
import { taskCatalog, getTaskType, taskTypes } from '../../runtime/catalog.js';

/**
 * Every task type's payload and result schema as named components (`TaskPayload.<type>`,
 * `TaskResult.<type>`): what a trigger sends and what a run of it answers in `result`.
 */
function taskTypeSchemas(): Record<string, TSchema> {
  return Object.fromEntries(
    taskCatalog().flatMap((entry) => {
      const t = getTaskType(entry.type);
      return t ? [[`TaskPayload.${t.type}`, t.payloadSchema], [`TaskResult.${t.type}`, t.resultSchema]] : [];
    }),
  );
}

/**
 * GET /api/openapi.json: the machine-readable contract, generated from the final route table
 * (this route included). The table is fixed once the server is built, so the document is built
 * on first request and kept until the task types change (a reload of the operator's folder
 * installs another registry).
 */
export function openapiRoutes(getRoutes: () => RouteSpec[], info: OpenApiInfo): RouteSpec[] {
  let document: Record<string, unknown> | null = null;
  let builtFor: unknown = null;
  return [
    routeFamily({ tags: ['meta'], access: docsPublic }).get('/api/openapi.json', {
      operationId: 'getOpenApiDocument',
      summary: 'The OpenAPI 3.1 document of this service',
      cache: { tags: [CacheTags.openapi] },
      schema: {
        response: {
          200: Type.Object(
            { openapi: Type.Literal('3.1.0'), info: Type.Object({}, { additionalProperties: true }), paths: Type.Object({}, { additionalProperties: true }) },
            { additionalProperties: true },
          ),
        },
      },
      handler: async () => {
        if (document === null || builtFor !== taskTypes()) {
          builtFor = taskTypes();
          document = buildOpenApiDocument(getRoutes(), info, taskTypeSchemas());
        }
        return { body: document };
      },
    }),
  ];
}
