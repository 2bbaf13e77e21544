import { Duplicate, Queued } from '../../runtime/trigger-answer.js';
import { RunListPage, RunObject } from '../../runtime/run-list-answer.js';
import Type, { type Static } from 'typebox';
import { CacheTags, runListPageTags } from '../../domain/cache-invalidation.js';
import { notFound } from '../../domain/errors.js';
import { isRunTag } from '../../domain/run-tags.js';
import { operatorWrite, routeFamily, viewerRead, type Identity, type ProtectedContext, type RouteReply, type RouteSpec } from '../route-spec.js';
import { withoutPayloads } from '../../runtime/payload-withheld.js';
import type { AdmissionOutcome } from '../../runtime/admission.js';
import type { TaskRuntime } from '../../runtime/runtime.js';
import { MAX_CONCURRENCY_KEY_LENGTH, RUN_STATUSES } from '../../domain/run-record.js';
import { PAYLOAD_QUERY_KEYS, TagQuery, VerdictQuery, payloadFilterOfQuery } from './run-filter-query.js';
import type { CatalogView } from '../../runtime/catalog-view.js';
import { PlacementFields } from '../../runtime/placement-schema.js';
import { TagsField } from '../../runtime/tags-schema.js';
import { DebounceField } from '../../runtime/debounce.js';

const BooleanQuery = Type.Union([Type.Literal('true'), Type.Literal('false')], {
  description: 'exactly `true` or `false`',
});
const RunsQuery = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
    includeInternal: Type.Optional(BooleanQuery),
    queueState: Type.Optional(
      Type.Union([Type.Literal('held'), Type.Literal('awaiting-approval'), Type.Literal('ready'), Type.Literal('waiting')], {
        description:
          '`held`: runs waiting for an approval (status stays `pending`; `awaiting-approval`, the word of queueAttempts[].state, is the same); `ready`: pending runs waiting for a slot; `waiting`: flow steps whose dependencies have not ended',
      }),
    ),
    idPrefix: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 400,
        description: 'only runs whose id starts with this text (case-sensitive); the command line and console resolve short ids through it. Paths keep exact ids.',
      }),
    ),
    verdict: Type.Optional(VerdictQuery),
    concurrencyKey: Type.Optional(
      Type.String({ minLength: 1, maxLength: MAX_CONCURRENCY_KEY_LENGTH, description: 'only runs triggered with this concurrency key' }),
    ),
    tag: Type.Optional(TagQuery),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    cursor: Type.Optional(
      Type.String({ minLength: 1, maxLength: 100, description: 'nextCursor of the previous page; stable while new runs arrive' }),
    ),
    createdFrom: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: 'only runs created at or after this instant (inclusive)' }),
    ),
    createdTo: Type.Optional(
      Type.String({ format: 'date-time', maxLength: 64, description: 'only runs created before this instant (exclusive); must be after createdFrom' }),
    ),
  },
  { additionalProperties: false, patternProperties: PAYLOAD_QUERY_KEYS },
);

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

export const TriggerBody = Type.Object(
  {
    type: Type.String({ minLength: 1, description: 'a public-triggerable task type' }),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'task-specific fields' })),
    ...PlacementFields,
    ...TagsField,
    debounce: Type.Optional(DebounceField),
  },
  { additionalProperties: false },
);


/**
 * The 202 answer: `queued` as the contract says, plus `approval: "required"` when the run is
 * held for an operator's decision (its status stays `pending` until then).
 */
export const QueuedReply = Type.Object({
  ...Queued.properties,
  approval: Type.Optional(
    Type.Literal('required', {
      description: 'present when the run waits for an approval (GET /api/approvals/pending) before it runs; its status stays `pending`',
    }),
  ),
});

/** The `?tag=` values of a query as the scope check reads them (before the schema checked them). */
function tagsOfQuery(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  return values.filter(isRunTag);
}

/** A new key is 202 queued; a key some run already owns is 200 duplicate-suppressed. */
export function triggerReply(outcome: AdmissionOutcome): RouteReply {
  const { run } = outcome;
  if (outcome.kind === 'duplicate') {
    const body: Static<typeof Duplicate> = {
      status: 'duplicate-suppressed',
      taskId: run.taskId,
      runId: run.runId,
      type: run.type,
      existingStatus: run.status,
      reason: outcome.reason,
    };
    return { statusCode: 200, body };
  }
  // A re-admitted retry is queued anew: its queueing time is the re-admission, not the first one.
  const createdAt = outcome.kind === 'admitted' ? run.createdAt : run.updatedAt;
  const body: Static<typeof QueuedReply> = { status: 'queued', taskId: run.taskId, runId: run.runId, type: run.type, createdAt };
  if (run.queueState === 'held') body.approval = 'required';
  return { statusCode: 202, body };
}

export function taskRoutes(deps: { runtime: TaskRuntime; catalog: CatalogView; viewerSeesPayloads: boolean }): RouteSpec[] {
  const { runtime } = deps;
  // The response cache keys entries by role, so a viewer's withheld view never reaches an operator.
  const shownTo = <T extends Record<string, unknown>>(identity: Identity, run: T): T =>
    identity.role === 'viewer' && !deps.viewerSeesPayloads ? withoutPayloads(run) : run;
  const reads = routeFamily({ tags: ['tasks'], access: viewerRead });
  const writes = routeFamily({ tags: ['tasks'], access: operatorWrite });
  return [
    reads.get('/api/tasks/catalog', {
      operationId: 'getTaskCatalog',
      summary: 'Non-internal task types with classification labels and telemetry overlays',
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
    }),
    writes.post('/api/tasks/trigger', {
      operationId: 'triggerTask',
      summary: 'Admit a task request through the central idempotency check',
      description:
        'New key: 202 queued (durable before the reply), with `approval: "required"` when the run is held for a decision. Key owned by an existing run: 200 duplicate-suppressed. `concurrencyKey`, `priority` and `debounce` (a later trigger of the same key in the window: 200 duplicate-suppressed, reason `debounced`): docs/queue.md.',
      schema: { body: TriggerBody, response: { 202: QueuedReply, 200: Duplicate } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof TriggerBody>>) =>
        triggerReply(await runtime.trigger(ctx.body, ctx.identity, ctx.traceparent)),
    }),
    reads.get('/api/tasks/runs', {
      operationId: 'listTaskRuns',
      description:
        'Besides the declared parameters, `payload.<field>=<value>` (up to 8, dotted for nested fields: `payload.scope=projects/app`) keeps runs whose payload holds that scalar exactly: text as text, a number numerically, `true`/`false` as booleans. Payload and verdict filters read each run matching the other filters (no index); the page limit bounds the answer.',
      summary: 'Run records, newest first; internal task types only with includeInternal=true; filters type, status, queueState, concurrencyKey, tag, idPrefix, payload.<field>, verdict, createdFrom/To',
      // Tagged by filter, so a run write drops only the pages whose filters the run matches. A
      // time-ranged page carries its filter's tags too: a matching write outside the range drops
      // it needlessly but never leaves it stale (the URL, range included, keys the entry).
      cache: {
        tags: (ctx) => {
          const q = ctx.query as Static<typeof RunsQuery>;
          // queueState, idPrefix, payload and verdict only narrow a page: a write that can change it also matches
          // its type/status/visibility tags, so those tags still drop it (the URL keys the entry).
          return runListPageTags({ type: q.type, status: q.status, includeInternal: q.includeInternal === 'true' });
        },
      },
      schema: {
        querystring: RunsQuery,
        response: {
          200: RunListPage,
        },
      },
      tokenReads: ({ query }) => ({ kind: 'runs', idPrefix: typeof query.idPrefix === 'string' ? query.idPrefix : undefined, tags: tagsOfQuery(query.tag) }),
      handler: async (ctx: ProtectedContext<Static<typeof RunsQuery>>) => {
        const q = ctx.query;
        const page = await runtime.listRuns({
            type: q.type,
            status: q.status,
            includeInternal: q.includeInternal === 'true',
            queueState: q.queueState === 'awaiting-approval' ? 'held' : q.queueState,
            idPrefix: q.idPrefix,
            payload: payloadFilterOfQuery(q),
            verdict: q.verdict,
            concurrencyKey: q.concurrencyKey,
            tags: q.tag,
            limit: q.limit ?? 50,
            offset: q.offset ?? 0,
            cursor: q.cursor,
            createdFrom: q.createdFrom,
            createdTo: q.createdTo,
        });
        return { body: { ...page, items: page.items.map((run) => shownTo(ctx.identity, run)) } };
      },
    }),
    reads.get('/api/tasks/runs/:runId', {
      operationId: 'getTaskRun',
      summary: 'One run record with its workflow graph, events, approval and proof links',
      cache: { tags: (ctx) => [CacheTags.run((ctx.params as { runId: string }).runId)] },
      schema: { params: RunIdParams, response: { 200: RunObject } },
      tokenReads: ({ params }) => ({ kind: 'run', runId: params.runId ?? '' }),
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>>) => {
        const run = await runtime.getRun(ctx.params.runId);
        if (!run) throw notFound(`run ${ctx.params.runId}`);
        return { body: shownTo(ctx.identity, run) };
      },
    }),
  ];
}
