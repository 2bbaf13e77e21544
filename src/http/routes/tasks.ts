import Type from 'typebox';
import { CacheTags } from '../cache-tags.js';
import { notFound } from '../errors.js';
import type { RouteContext, RouteSpec } from '../route-spec.js';
import type { TaskRuntime } from '../../tasks/runtime.js';
import { RUN_STATUSES, type RunStatus } from '../../tasks/types.js';
import type { CatalogView } from '../../tasks/catalog-view.js';

const BooleanQuery = Type.Union([Type.Literal('true'), Type.Literal('false')], {
  description: 'exactly `true` or `false`',
});
const RunsQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
    includeInternal: Type.Optional(BooleanQuery),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'nextCursor of the previous page; stable while new runs arrive' }),
    ),
  },
  { additionalProperties: false },
);
type RunsQueryValue = {
  type?: string;
  status?: RunStatus;
  includeInternal?: 'true' | 'false';
  limit?: number;
  offset?: number;
  cursor?: string;
};

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

const RunObject = Type.Object(
  {
    runId: Type.String(),
    taskId: Type.String(),
    type: Type.String(),
    status: Type.String(),
    queueAttempts: Type.Array(Type.Object({}, { additionalProperties: true })),
    events: Type.Array(Type.Object({}, { additionalProperties: true })),
    workflow: Type.Object({}, { additionalProperties: true }),
    workflowGraph: Type.Object({}, { additionalProperties: true }),
    approval: Type.Object({}, { additionalProperties: true }),
    proofLinks: Type.Array(Type.Object({}, { additionalProperties: true })),
    resultSummary: Type.Object({}, { additionalProperties: true }),
  },
  { additionalProperties: true, description: 'a run record with its derived workflow views' },
);

const TriggerBody = Type.Object(
  {
    type: Type.String({ minLength: 1, description: 'a public-triggerable task type' }),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'task-specific fields' })),
  },
  { additionalProperties: false },
);

const Queued = Type.Object({
  status: Type.Literal('queued'),
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});
const Duplicate = Type.Object({
  status: Type.Literal('duplicate-suppressed'),
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  existingStatus: Type.String(),
  reason: Type.String(),
});

export function taskRoutes(deps: { runtime: TaskRuntime; catalog: CatalogView }): RouteSpec[] {
  const { runtime } = deps;
  return [
    {
      method: 'GET',
      path: '/api/tasks/catalog',
      operationId: 'getTaskCatalog',
      summary: 'Non-internal task types with classification labels and telemetry overlays',
      tags: ['tasks'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      cache: { tags: [CacheTags.catalog] },
      schema: {
        response: {
          200: Type.Object(
            { count: Type.Integer(), tasks: Type.Array(Type.Object({ type: Type.String() }, { additionalProperties: true })) },
            { additionalProperties: true },
          ),
        },
      },
      handler: async () => ({ body: await deps.catalog.publicEntries() }),
    },
    {
      method: 'POST',
      path: '/api/tasks/trigger',
      operationId: 'triggerTask',
      summary: 'Admit a task request through the central idempotency check',
      description: 'New key: 202 queued (durable before the reply). Key owned by an existing run: 200 duplicate-suppressed.',
      tags: ['tasks'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      schema: { body: TriggerBody, response: { 202: Queued, 200: Duplicate } },
      handler: async (ctx: RouteContext<unknown, unknown, unknown>) => {
        const reply = await runtime.trigger(ctx.body, ctx.identity!);
        return { statusCode: reply.statusCode, body: reply.body };
      },
    },
    {
      method: 'GET',
      path: '/api/tasks/runs',
      operationId: 'listTaskRuns',
      summary: 'Run records, newest first; internal task types only with includeInternal=true',
      tags: ['tasks'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      cache: { tags: [CacheTags.runs] },
      schema: {
        querystring: RunsQuery,
        response: {
          200: Type.Object({
            items: Type.Array(RunObject),
            total: Type.Integer(),
            limit: Type.Integer(),
            offset: Type.Integer(),
            nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last' }),
          }),
        },
      },
      handler: async (ctx: RouteContext<RunsQueryValue>) => {
        const q = ctx.query;
        return {
          body: await runtime.listRuns({
            type: q.type,
            status: q.status,
            includeInternal: q.includeInternal === 'true',
            limit: q.limit ?? 50,
            offset: q.offset ?? 0,
            cursor: q.cursor,
          }),
        };
      },
    },
    {
      method: 'GET',
      path: '/api/tasks/runs/:runId',
      operationId: 'getTaskRun',
      summary: 'One run record with its workflow graph, events, approval and proof links',
      tags: ['tasks'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      cache: { tags: (ctx) => [CacheTags.run((ctx.params as { runId: string }).runId)] },
      schema: { params: RunIdParams, response: { 200: RunObject } },
      handler: async (ctx: RouteContext<unknown, { runId: string }>) => {
        const run = await runtime.getRun(ctx.params.runId);
        if (!run) throw notFound(`run ${ctx.params.runId}`);
        return { body: run };
      },
    },
  ];
}
