import Type, { type Static } from 'typebox';
import type { RunEventHub } from '../../events/run-event-hub.js';
import { flowStepRunId } from '../../flows/flow-definition.js';
import { FlowName, FlowStepsSchema } from '../../flows/flow-schema.js';
import type { FlowService } from '../../flows/flow-service.js';
import { FLOW_STEP_STATES } from '../../flows/flow-step-state.js';
import { MAX_CANCEL_REASON_CHARS } from '../../runtime/run-cancel.js';
import { ErrorBodySchema } from '../error-schema.js';
import { operatorWrite, routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import { lastEventId, TokenQuery, StreamDescription, StreamSchema, streamReply } from './events.js';

const FlowBody = Type.Object(
  {
    id: Type.Optional(FlowName('the flow id; the same id again is a duplicate (200)')),
    idempotencyKey: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'the same key again answers the flow it first admitted (200)' })),
    steps: FlowStepsSchema,
  },
  { additionalProperties: false },
);
type FlowBodyType = Static<typeof FlowBody>;

const Admitted = Type.Object(
  {
    status: Type.Union([Type.Literal('queued'), Type.Literal('duplicate-suppressed')]),
    flowId: Type.String(),
    runIds: Type.Array(Type.String(), { description: 'one per step, in dependency order' }),
  },
  { additionalProperties: false },
);

const FlowStatus = Type.Union([Type.Literal('running'), Type.Literal('success'), Type.Literal('failed'), Type.Literal('cancelled')]);
const SummaryFields = {
  flowId: Type.String(),
  status: FlowStatus,
  cancelRequested: Type.Boolean(),
  createdAt: Type.String(),
  endedAt: Type.Union([Type.String(), Type.Null()]),
  requestedBy: Type.String(),
  idempotencyKey: Type.Union([Type.String(), Type.Null()]),
  rerunOf: Type.Union([Type.String(), Type.Null()]),
  stepCount: Type.Integer(),
};
const FlowSummary = Type.Object(SummaryFields, { additionalProperties: false });
const StepView = Type.Object(
  {
    key: Type.String(),
    type: Type.String(),
    dependsOn: Type.Array(Type.String()),
    onDependencyFailure: Type.String(),
    runId: Type.Union([Type.String(), Type.Null()]),
    replayRunId: Type.Union([Type.String(), Type.Null()]),
    state: Type.Union(FLOW_STEP_STATES.map((s) => Type.Literal(s))),
    reason: Type.Union([Type.String(), Type.Null()]),
    startedAt: Type.Union([Type.String(), Type.Null()]),
    finishedAt: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: false },
);
const FlowView = Type.Object({ ...SummaryFields, steps: Type.Array(StepView) }, { additionalProperties: false });

const ListQuery = Type.Object(
  {
    status: Type.Optional(FlowStatus),
    from: Type.Optional(Type.String({ description: 'only flows created at or after this instant (ISO 8601)' })),
    to: Type.Optional(Type.String({ description: 'only flows created before this instant (ISO 8601)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 420, description: 'nextCursor of the previous page: the flows listed after it' })),
  },
  { additionalProperties: false },
);
const FlowParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const RerunBody = Type.Object(
  { from: Type.Optional(FlowName('the step to run again from; the steps before it that succeeded are reused (absent: every step that succeeded)')) },
  { additionalProperties: false },
);
const RerunAdmitted = Type.Object({ ...Admitted.properties, rerunOf: Type.String() }, { additionalProperties: false });
const CancelBody = Type.Object({ reason: Type.Optional(Type.String({ maxLength: MAX_CANCEL_REASON_CHARS })) }, { additionalProperties: false });

const CREATE_DESCRIPTION = [
  'Admits the flow and every step run all or none (202 `queued`, durable before the reply). A step with dependencies waits (state `waiting`, holding no slot)',
  'until they ended, then becomes pending exactly once. A cycle, an unknown or duplicate key, an unknown type, a bad payload or more than 1,000 steps',
  'answers 400 naming the step and field; the same `id` or `idempotencyKey` again answers 200 `duplicate-suppressed`.',
].join(' ');

/** Flows of runs (docs/flows.md): admission, views and cancel. */
export function flowRoutes(deps: { flows: FlowService; events: RunEventHub }): RouteSpec[] {
  const { flows, events } = deps;
  const reads = routeFamily({ tags: ['flows'], access: viewerRead });
  const writes = routeFamily({ tags: ['flows'], access: operatorWrite });
  return [
    writes.post('/api/flows', {
      operationId: 'createFlow',
      summary: 'Admit a flow: steps as runs that depend on runs',
      description: CREATE_DESCRIPTION,
      schema: { body: FlowBody, response: { 202: Admitted, 200: Admitted } },
      handler: async (ctx: ProtectedContext<unknown, unknown, FlowBodyType>) => {
        const outcome = await flows.create({ ...ctx.body, requestedBy: ctx.identity.actor });
        const body = { status: outcome.kind === 'admitted' ? ('queued' as const) : ('duplicate-suppressed' as const), flowId: outcome.flowId, runIds: outcome.runIds };
        return { statusCode: outcome.kind === 'admitted' ? 202 : 200, body };
      },
    }),
    reads.get('/api/flows', {
      operationId: 'listFlows',
      summary: 'Flows, newest first, a page at a time (limit, cursor); filters status and from/to (createdAt, half-open)',
      schema: { querystring: ListQuery, response: { 200: Type.Object({ items: Type.Array(FlowSummary), nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last' }) }, { additionalProperties: false }) } },
      handler: async (ctx: ProtectedContext<Static<typeof ListQuery>>) => ({ body: await flows.list(ctx.query) }),
    }),
    reads.get('/api/flows/:id', {
      operationId: 'getFlow',
      summary: 'One flow with each step\'s state, run and timings',
      schema: { params: FlowParams, response: { 200: FlowView } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof FlowParams>>) => ({ body: await flows.get(ctx.params.id) }),
    }),
    reads.get('/api/flows/:id/events', {
      operationId: 'streamFlowEvents',
      summary: 'A flow’s events as server-sent events: every event of its step runs so far, then live ones',
      description: `${StreamDescription} Every step run's events (admitted, waiting-for-dependencies, dependencies-ended, skipped, started, finished ...) from the first, then live ones until the client closes; resumable with Last-Event-ID. An approved step's replay run is not in it (GET /api/flows/:id names it).`,
      produces: 'text/event-stream',
      schema: { params: FlowParams, querystring: TokenQuery, response: { 200: StreamSchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof FlowParams>>) => {
        // 404 before a stream slot is taken.
        await flows.get(ctx.params.id);
        return streamReply(events.prepareRunGroupStream(flowStepRunId(ctx.params.id, ''), { key: ctx.identity.actor, lastEventId: lastEventId(ctx) }));
      },
    }),
    writes.post('/api/flows/:id/rerun', {
      operationId: 'rerunFlow',
      summary: 'A new flow of the same steps, linked by `rerunOf`, reusing the results of the steps before `from` that succeeded',
      description:
        'Answers 202 `queued` with the new flow id and one run id a step: a reused step\'s is the earlier run (its result is what dependents and `$from` read), the others are new runs. A step reused only when every dependency of it is reused too. `from` naming no step: 400.',
      schema: { params: FlowParams, body: RerunBody, response: { 202: RerunAdmitted } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof FlowParams>, Static<typeof RerunBody> | undefined>) => {
        const outcome = await flows.rerun(ctx.params.id, ctx.body?.from, ctx.identity);
        return { statusCode: 202, body: { status: 'queued' as const, flowId: outcome.flowId, runIds: outcome.runIds, rerunOf: outcome.rerunOf } };
      },
    }),
    writes.post('/api/flows/:id/cancel', {
      operationId: 'cancelFlow',
      summary: 'Cancel a flow: every step not ended is cancelled (running ones as a run cancel does)',
      description: 'Answers the flow as it is then; running steps end `cancelled` once their processes are gone, and the flow `cancelled` once every step ended. Again: no change. A flow that already ended otherwise: 409 `conflict`.',
      schema: { params: FlowParams, body: CancelBody, response: { 200: FlowView, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof FlowParams>, Static<typeof CancelBody> | undefined>) => ({
        body: await flows.cancel(ctx.params.id, ctx.body?.reason ?? null, ctx.identity),
      }),
    }),
  ];
}
