import Type, { type Static } from 'typebox';
import { SCHEDULER_ACTIONS, type BusinessService } from '../../business/service.js';
import { ErrorBodySchema } from '../error-schema.js';
import { operatorWrite, routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });

const TriggerBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: 500 })) }, { additionalProperties: false });
const SchedulerBody = Type.Object(
  { action: Type.Union(SCHEDULER_ACTIONS.map((a) => Type.Literal(a)), { description: 'pause, resume (alias enable) or disable' }) },
  { additionalProperties: false },
);
const CycleParams = Type.Object({ cycleId: Type.String({ minLength: 1, maxLength: 200 }) });
const CyclesQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);
const Queued = Type.Object(
  {
    status: Type.Literal('queued'),
    cycleId: Type.String(),
    taskId: Type.Union([Type.String(), Type.Null()]),
    runId: Type.String(),
    retryOf: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const CONFLICT_NOTE =
  '409 `conflict` carries `details.decision`: `active`, `cooldown`, `paused`, `disabled` or `backoff` (with `details.until` for cooldown and backoff).';

/** The business-value planner: read models (viewer) and the operator's trigger, retry and scheduler switch. */
export function businessRoutes(deps: { business: BusinessService }): RouteSpec[] {
  const { business } = deps;
  const reads = routeFamily({ tags: ['business'], access: viewerRead });
  const writes = routeFamily({ tags: ['business'], access: operatorWrite });
  const read = (path: string, operationId: string, summary: string, handler: () => Promise<unknown>): RouteSpec =>
    reads.get(path, { operationId, summary, schema: { response: { 200: Open(summary) } }, handler: async () => ({ body: await handler() }) });
  return [
    read('/api/business/overview', 'getBusinessOverview', 'Mission, registry, ranked candidates, selected task, scheduler, blockers, verification, evidence and next actions', business.overview),
    read('/api/business/operations', 'getBusinessOperations', 'Automatic mode, cadence, active lock, last progress, failure backoff, active worker, selected model and approval-gated candidates', business.operations),
    read('/api/business/candidates', 'listBusinessCandidates', 'Candidates ranked now from the registry, with score breakdown and disposition', business.candidates),
    reads.get('/api/business/cycles', {
      operationId: 'listBusinessCycles',
      summary: 'Cycle history, newest first',
      schema: { querystring: CyclesQuery, response: { 200: Open('Cycles, newest first, with total, limit and offset') } },
      handler: async (ctx: ProtectedContext<Static<typeof CyclesQuery>>) => ({
        body: await business.listCycles(ctx.query.limit ?? 50, ctx.query.offset ?? 0),
      }),
    }),
    reads.get('/api/business/cycles/:cycleId', {
      operationId: 'getBusinessCycle',
      summary: 'One cycle with its candidates, selected task, evidence, blockers and next actions',
      schema: { params: CycleParams, response: { 200: Open('The cycle record') } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof CycleParams>>) => ({ body: await business.cycleDetail(ctx.params.cycleId) }),
    }),
    writes.post('/api/business/cycle/trigger', {
      operationId: 'triggerBusinessCycle',
      summary: 'Start a bounded business cycle through the normal task queue',
      description: CONFLICT_NOTE,
      schema: { body: TriggerBody, response: { 202: Queued, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof TriggerBody>>) => ({
        statusCode: 202,
        body: await business.trigger(ctx.body?.reason, ctx.identity),
      }),
    }),
    writes.post('/api/business/cycles/:cycleId/retry', {
      operationId: 'retryBusinessCycle',
      summary: 'Retry a failed cycle (a new cycle linked by retryOf); other states are 409',
      description: `409 \`conflict\` when the cycle did not fail (\`details.decision: not-failed\`), was already retried (\`already-retried\`), or a cycle is active, paused or disabled. A retry skips cooldown and backoff.`,
      schema: { params: CycleParams, response: { 202: Queued, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof CycleParams>>) => ({
        statusCode: 202,
        body: await business.retry(ctx.params.cycleId, ctx.identity),
      }),
    }),
    writes.post('/api/business/scheduler', {
      operationId: 'setBusinessScheduler',
      summary: 'Pause, resume (enable) or disable the automatic business scheduler; persisted',
      schema: {
        body: SchedulerBody,
        response: {
          200: Type.Object({ status: Type.Literal('updated'), scheduler: Open('The persisted scheduler state') }, { additionalProperties: false }),
          409: ErrorBodySchema,
        },
      },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof SchedulerBody>>) => ({
        body: await business.setScheduler(ctx.body.action, ctx.identity),
      }),
    }),
  ];
}
