import Type, { type Static } from 'typebox';
import { RUN_STATUSES } from '../../domain/run-record.js';
import { MAX_PAYLOAD_FILTER_FIELDS, PAYLOAD_FIELD_PATTERN } from '../../store/run-field-filters.js';
import { DEFAULT_BULK_MAX, MAX_BULK_MAX, type BulkFilter } from '../../runtime/bulk-actions.js';
import { MAX_CANCEL_REASON_CHARS } from '../../runtime/run-cancel.js';
import type { TaskRuntime } from '../../runtime/runtime.js';
import { operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import { TagsFilter, VerdictQuery } from './run-filter-query.js';

const FilterSchema = Type.Object(
  {
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    status: Type.Optional(Type.Union(RUN_STATUSES.map((s) => Type.Literal(s)))),
    queueState: Type.Optional(Type.Union([Type.Literal('held'), Type.Literal('awaiting-approval'), Type.Literal('ready')])),
    idPrefix: Type.Optional(Type.String({ minLength: 1, maxLength: 400 })),
    payload: Type.Optional(
      Type.Record(Type.String({ pattern: PAYLOAD_FIELD_PATTERN }), Type.Union([Type.String({ maxLength: 400 }), Type.Number(), Type.Boolean()]), {
        maxProperties: MAX_PAYLOAD_FILTER_FIELDS,
        description: 'payload fields (dotted for nested ones) and the scalar each must hold exactly, as GET /api/tasks/runs `payload.<field>`',
      }),
    ),
    verdict: Type.Optional(VerdictQuery),
    tags: Type.Optional(TagsFilter),
    createdFrom: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
    createdTo: Type.Optional(Type.String({ format: 'date-time', maxLength: 64 })),
  },
  {
    additionalProperties: false,
    description: 'the run listing\'s filters (internal task types are never picked); at least one must be given',
  },
);

const selection = {
  filter: Type.Optional(FilterSchema),
  runIds: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 400 }), {
      minItems: 1,
      maxItems: MAX_BULK_MAX,
      description: 'exact run ids, instead of a filter (the console sends its selected rows); at most `max`',
    }),
  ),
  dryRun: Type.Optional(Type.Boolean({ description: 'true: change nothing and answer what each run would come to' })),
  max: Type.Optional(
    Type.Integer({ minimum: 1, maximum: MAX_BULK_MAX, description: `most runs acted on (newest first); default ${DEFAULT_BULK_MAX}` }),
  ),
};

const BulkCancelBody = Type.Object(
  { ...selection, reason: Type.Optional(Type.String({ maxLength: MAX_CANCEL_REASON_CHARS, description: 'kept on each cancelled run' })) },
  { additionalProperties: false },
);
const BulkRerunBody = Type.Object(selection, { additionalProperties: false });

function answerSchema(outcomes: string[], extra: Record<string, ReturnType<typeof Type.Optional>>) {
  return Type.Object(
    {
      dryRun: Type.Boolean(),
      matched: Type.Integer({ description: 'runs the filter matched (the ids given, for runIds)' }),
      truncated: Type.Boolean({ description: 'more runs matched than `max`: only the newest `max` were picked' }),
      runs: Type.Array(
        Type.Object(
          {
            runId: Type.String(),
            type: Type.Union([Type.String(), Type.Null()]),
            status: Type.Union([Type.String(), Type.Null()], { description: 'the run\'s status when picked; null: no such run' }),
            outcome: Type.Union(outcomes.map((o) => Type.Literal(o))),
            reason: Type.Optional(Type.String({ description: 'why it was refused or left alone' })),
            ...extra,
          },
          { additionalProperties: false },
        ),
      ),
    },
    { additionalProperties: false },
  );
}

const CancelAnswer = answerSchema(['cancelled', 'cancelling', 'already-finished', 'refused', 'not-found'], {});
const RerunAnswer = answerSchema(['rerun', 'refused', 'not-found'], {
  newRunId: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: 'the new run; null in a dry run' })),
});

const COMMON = [
  'Picks runs by `filter` (the run listing\'s filters, at least one) or by exact `runIds`, newest first, at most `max`',
  `(default ${DEFAULT_BULK_MAX}, at most ${MAX_BULK_MAX}; above is 400), and answers each run's outcome.`,
  'Each run goes through the single-run route\'s code, one after the other; a run it refuses is reported with the reason and the rest go on.',
  '`dryRun: true` changes nothing and answers what each run would come to.',
].join(' ');

/** The bulk selection as the domain reads it: `awaiting-approval` is the word people see for `held`. */
function domainFilter(filter: Static<typeof FilterSchema> | undefined): BulkFilter | undefined {
  if (filter === undefined) return undefined;
  return { ...filter, queueState: filter.queueState === 'awaiting-approval' ? 'held' : filter.queueState };
}

/**
 * `POST /api/tasks/bulk/cancel` and `/api/tasks/bulk/rerun` (docs/http.md, "Bulk cancel and rerun").
 * Under `/api/tasks/bulk/`, a path no run id can take: run routes live under `/api/tasks/runs/`.
 */
export function bulkRunRoutes(deps: { runtime: TaskRuntime }): RouteSpec[] {
  const { bulk } = deps.runtime;
  const writes = routeFamily({ tags: ['tasks'], access: operatorWrite });
  return [
    writes.post('/api/tasks/bulk/cancel', {
      operationId: 'bulkCancelTaskRuns',
      summary: 'Cancel many runs picked by a filter or by ids, each as POST /api/tasks/runs/:runId/cancel would',
      description: `${COMMON} Outcomes: \`cancelled\`, \`cancelling\` (running: its owner stops it), \`already-finished\`, \`refused\` (for example an approved hold whose replay runs), \`not-found\`.`,
      schema: { body: BulkCancelBody, response: { 200: CancelAnswer } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof BulkCancelBody>>) => ({
        body: await bulk.cancel({ ...ctx.body, filter: domainFilter(ctx.body.filter) }, ctx.identity),
      }),
    }),
    writes.post('/api/tasks/bulk/rerun', {
      operationId: 'bulkRerunTaskRuns',
      summary: 'Rerun many runs picked by a filter or by ids, each as POST /api/tasks/runs/:runId/rerun would',
      description: `${COMMON} Each rerun is a new run of the same type with the original's payload and a fresh id (\`newRunId\`), linked by rerunOf / reruns[]. Outcomes: \`rerun\`, \`refused\` (internal or unknown type, a payload the type no longer accepts), \`not-found\`.`,
      schema: { body: BulkRerunBody, response: { 200: RerunAnswer } },
      handler: async (ctx: ProtectedContext<unknown, unknown, Static<typeof BulkRerunBody>>) => ({
        body: await bulk.rerun({ ...ctx.body, filter: domainFilter(ctx.body.filter) }, ctx.identity),
      }),
    }),
  ];
}
