import Type, { type Static } from 'typebox';
import { FlowStepsSchema } from '../flows/flow-schema.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import { actorList } from '../runtime/run-requesters.js';
import { PlacementFields } from '../runtime/placement-schema.js';
import { TagsField } from '../runtime/tags-schema.js';

/**
 * The words of a schedule: what an operator sends, what the store keeps, what a reader gets.
 * One schema each; the route validates and documents with them, the types come from them.
 */

/** Letters, digits, `.`, `_`, `-`; starts with a letter or digit. It becomes part of run ids. */
export const SCHEDULE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

export const OverlapPolicySchema = Type.Union(
  [Type.Literal('skip'), Type.Literal('allow'), Type.Literal('cancel-previous')],
  {
    description:
      'While the previous run of the schedule is not finished: `skip` this firing, `allow` it beside the previous run, or `cancel-previous` (ask the previous run to cancel, then admit)',
  },
);
export const CatchUpPolicySchema = Type.Union(
  [Type.Literal('skip'), Type.Literal('once')],
  { description: 'After downtime: `skip` the missed firings, or run the most recent missed one `once`' },
);
export type OverlapPolicy = Static<typeof OverlapPolicySchema>;
export type CatchUpPolicy = Static<typeof CatchUpPolicySchema>;

const ScheduleId = Type.String({ pattern: SCHEDULE_ID_PATTERN, description: 'The schedule id (letters, digits, `.`, `_`, `-`; at most 100)' });
const Cron = Type.String({
  minLength: 1,
  maxLength: 200,
  description: 'Five fields (minute hour day-of-month month day-of-week), or six with seconds first',
});
const TimeZone = Type.String({ minLength: 1, maxLength: 100, description: 'IANA time zone the cron expression is read in (default UTC)' });
const TaskType = Type.String({ minLength: 1, maxLength: 100, description: 'A public task type of the catalog' });
const Payload = Type.Record(Type.String(), Type.Unknown(), { description: 'The payload of every run, checked like a trigger’s' });
/** A flow each firing admits: a flow definition without id or idempotency key (each firing names its flow). */
export const ScheduledFlowSchema = Type.Object(
  { steps: FlowStepsSchema },
  { additionalProperties: false, description: 'Instead of `type` and `payload`: the flow each firing admits (docs/flows.md), checked as POST /api/flows checks one' },
);
export type ScheduledFlow = Static<typeof ScheduledFlowSchema>;

export const ScheduleCreateSchema = Type.Object(
  {
    id: Type.Optional(ScheduleId),
    cron: Cron,
    timezone: Type.Optional(TimeZone),
    // Exactly one of `type` and `flow` (checked by the schedules service, naming the field).
    type: Type.Optional(TaskType),
    payload: Type.Optional(Payload),
    flow: Type.Optional(ScheduledFlowSchema),
    enabled: Type.Optional(Type.Boolean({ description: 'Default true' })),
    overlap: Type.Optional(OverlapPolicySchema),
    catchUp: Type.Optional(CatchUpPolicySchema),
    ...PlacementFields,
    ...TagsField,
  },
  { additionalProperties: false },
);
export type ScheduleCreate = Static<typeof ScheduleCreateSchema>;

export const SchedulePatchSchema = Type.Object(
  {
    cron: Type.Optional(Cron),
    timezone: Type.Optional(TimeZone),
    type: Type.Optional(TaskType),
    payload: Type.Optional(Payload),
    flow: Type.Optional(ScheduledFlowSchema),
    enabled: Type.Optional(Type.Boolean()),
    overlap: Type.Optional(OverlapPolicySchema),
    catchUp: Type.Optional(CatchUpPolicySchema),
    ...PlacementFields,
    ...TagsField,
  },
  {
    additionalProperties: false,
    minProperties: 1,
    description: 'The fields to change; `payload` replaces the whole payload; `type` makes a flow schedule a task schedule and `flow` the reverse',
  },
);
export type SchedulePatch = Static<typeof SchedulePatchSchema>;

const Instant = Type.String({ format: 'date-time' });
const NullableString = Type.Union([Type.String(), Type.Null()]);
const NullableInstant = Type.Union([Instant, Type.Null()]);

/** What a schedule is, as stored and as shown. */
const ScheduleFields = {
  cron: Type.String(),
  timezone: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  enabled: Type.Boolean(),
  overlap: OverlapPolicySchema,
  catchUp: CatchUpPolicySchema,
};

/** A user schedule as the store keeps it (collection `schedules`, keyed by id). Written only by the API. */
export const ScheduleDefinitionSchema = Type.Object({
  id: Type.String(),
  ...ScheduleFields,
  /** The task type each firing runs; absent on a schedule that fires a flow (`flow`). */
  type: Type.Optional(Type.String()),
  /** The flow each firing admits; absent on a schedule of a task type. */
  flow: Type.Optional(ScheduledFlowSchema),
  createdAt: Instant,
  updatedAt: Instant,
  createdBy: Type.String(),
  updatedBy: Type.String(),
  /**
   * Who its firings are requested by: the creator and every actor who since changed its work
   * (type or payload) or switched it on. Never shortened: every later firing runs what they
   * shaped. Absent on schedules stored before it was kept (read as creator and last changer).
   */
  requesters: Type.Optional(Type.Array(Type.String())),
  /**
   * Fire times at or before this are never due: set at creation and whenever the timing or
   * `enabled` changes, so a disabled stretch or an old cron is not "missed" work to catch up.
   */
  activeSince: Instant,
  /** Where its firings queue (docs/queue.md); absent: unkeyed, default priority. */
  concurrencyKey: Type.Optional(Type.String()),
  priority: Type.Optional(Type.Integer()),
  /** Tags of its firings (docs/tasks.md, "Run tags"); absent: none. A flow schedule's steps carry their own. */
  tags: Type.Optional(Type.Array(Type.String())),
});
export type ScheduleDefinition = Static<typeof ScheduleDefinitionSchema>;

/** The latest firing not admitted, and why (`runId`: the run id that firing has, or would have had). */
const LastSkipSchema = Type.Object(
  {
    at: Instant,
    runId: Type.String(),
    reason: Type.String(),
  },
  { additionalProperties: false, description: 'The latest firing not admitted: its fire time, its run id and why (overlap, missed, run id taken)' },
);

/**
 * What firing has done (collection `schedule-firings`, keyed by the schedule id), kept apart from
 * the definition: the timers of every instance write it, the API never does, so neither
 * overwrites the other's fields.
 */
export const ScheduleFiringStateSchema = Type.Object({
  /** The latest fire time admitted (or found admitted by another instance). */
  lastFiredAt: NullableInstant,
  lastRunId: NullableString,
  /** Whether that firing was a catch-up after downtime. */
  lastCatchUp: Type.Boolean(),
  /** The latest fire time not admitted: overlap `skip`, or missed while down with catchUp `skip`. */
  lastSkippedAt: NullableInstant,
  lastSkipReason: NullableString,
  /** The same skip with its run id; absent on firing states stored before it was kept. */
  lastSkip: Type.Optional(Type.Union([LastSkipSchema, Type.Null()])),
});
export type ScheduleFiringState = Static<typeof ScheduleFiringStateSchema>;

export const NO_FIRINGS: ScheduleFiringState = Object.freeze({
  lastFiredAt: null,
  lastRunId: null,
  lastCatchUp: false,
  lastSkippedAt: null,
  lastSkipReason: null,
  lastSkip: null,
});

export const ScheduleViewSchema = Type.Object(
  {
    id: Type.String(),
    builtIn: Type.Boolean({ description: 'A schedule of the service itself (config): listed, never written through this API' }),
    ...ScheduleFields,
    type: Type.Union([Type.String(), Type.Null()], { description: 'the task type each firing runs; null when it fires a flow' }),
    flow: Type.Union([ScheduledFlowSchema, Type.Null()], { description: 'the flow each firing admits (flow id `<schedule id>.<fire time>`); null for a task schedule' }),
    concurrencyKey: Type.Union([Type.String(), Type.Null()], { description: 'the concurrency key of its firings (docs/queue.md); null: unkeyed' }),
    priority: Type.Integer({ description: 'the priority of its firings, 1-5' }),
    tags: Type.Array(Type.String(), { description: 'the tags of its firings (docs/tasks.md, "Run tags"); a flow schedule\'s steps carry their own' }),
    nextRunAt: Type.Array(Instant, { description: 'The next five fire times (empty while disabled)' }),
    lastRunId: NullableString,
    lastFiredAt: NullableInstant,
    lastCatchUp: Type.Boolean(),
    lastSkippedAt: NullableInstant,
    lastSkipReason: NullableString,
    lastSkip: Type.Union([LastSkipSchema, Type.Null()]),
    requesters: Type.Array(Type.String(), {
      description:
        'Who its firings are requested by: the creator and every actor who changed its type or payload or switched it on. None of them may approve a firing held for approval where allowSelfApproval is false. Empty for a built-in (the service asks)',
    }),
    createdAt: NullableInstant,
    updatedAt: NullableInstant,
    createdBy: NullableString,
    updatedBy: NullableString,
  },
  { additionalProperties: false },
);
export type ScheduleView = Static<typeof ScheduleViewSchema>;

export const ScheduleListSchema = Type.Object({ count: Type.Integer(), schedules: Type.Array(ScheduleViewSchema) }, { additionalProperties: false });
export type ScheduleList = Static<typeof ScheduleListSchema>;

/** The run id of one firing: every instance firing the same tick names the same run. */
export function scheduleRunId(scheduleId: string, fireAt: Date): string {
  return `${SERVICE_RUN_ID_PREFIXES.schedule}${scheduleId}:${fireAt.toISOString()}`;
}

/** Who a schedule's firings are requested by; a definition stored before the list was kept: its creator and last changer. */
export const scheduleRequesters = (definition: ScheduleDefinition): string[] =>
  definition.requesters ?? actorList([definition.createdBy, definition.updatedBy]);

/** The actor of a schedule's own requests (cancel of a previous run), distinct from its creator. */
export const scheduleActor = (scheduleId: string) => `schedule:${scheduleId}`;
