import Type, { type Static } from 'typebox';
import {
  ScheduleCreateSchema,
  ScheduleListSchema,
  SchedulePatchSchema,
  ScheduleViewSchema,
  type ScheduleCreate,
  type SchedulePatch,
} from '../../schedules/schedule-record.js';
import type { ScheduleService } from '../../schedules/schedule-service.js';
import { ErrorBodySchema } from '../error-schema.js';
import { operatorWrite, routeFamily, viewerRead, type ProtectedContext, type RouteSpec } from '../route-spec.js';

const ScheduleParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
type Params = Static<typeof ScheduleParams>;

const INVALID = [
  'A bad cron expression (five fields, or six with seconds first), time zone, task type (unknown or internal) or payload (checked as a trigger’s) answers 400 `invalid_request`, its details naming each field.',
  'A schedule runs a task type (`type`, `payload`) or a flow (`flow: {steps}`, checked as POST /api/flows checks one, details under `/body/flow/steps/<i>`), exactly one of them;',
  'each firing of a flow schedule admits the flow `<id>.<fire time>` once however many instances fire it.',
].join(' ');
const BUILT_IN = 'The built-in schedules (heartbeat, nightly-batch, business-cycle) come from config and answer 409 `conflict`.';

/**
 * User schedules: cron-timed task requests admitted through the one admission path with the run
 * id `schedule:<id>:<fire time>`. Uncached: every answer carries `nextRunAt` as of now.
 */
export function scheduleRoutes(deps: { schedules: ScheduleService }): RouteSpec[] {
  const { schedules } = deps;
  const reads = routeFamily({ tags: ['schedules'], access: viewerRead });
  const writes = routeFamily({ tags: ['schedules'], access: operatorWrite });
  return [
    reads.get('/api/schedules', {
      operationId: 'listSchedules',
      summary: 'The built-in schedules and every user schedule, with their next five fire times and latest run',
      schema: { response: { 200: ScheduleListSchema } },
      handler: async () => ({ body: await schedules.list() }),
    }),
    writes.post('/api/schedules', {
      operationId: 'createSchedule',
      summary: 'Create a schedule (201); its firings are requested by the creating key’s actor (and whoever later changes its work)',
      description: `${INVALID} An id already taken answers 409 \`conflict\`; so does a built-in's id.`,
      schema: { body: ScheduleCreateSchema, response: { 201: ScheduleViewSchema, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, unknown, ScheduleCreate>) => ({
        statusCode: 201,
        body: await schedules.create(ctx.body, ctx.identity.actor),
      }),
    }),
    reads.get('/api/schedules/:id', {
      operationId: 'getSchedule',
      summary: 'One schedule, built-in or user, with its next five fire times and latest run',
      schema: { params: ScheduleParams, response: { 200: ScheduleViewSchema } },
      handler: async (ctx: ProtectedContext<unknown, Params>) => ({ body: await schedules.get(ctx.params.id) }),
    }),
    writes.patch('/api/schedules/:id', {
      operationId: 'updateSchedule',
      summary: 'Change a user schedule; the fields sent replace the stored ones (payload as a whole)',
      description: `${INVALID} ${BUILT_IN} A new cron, time zone or re-enabling starts the schedule afresh: ticks before it are not caught up. A change of type or payload, or switching it on, adds the actor to the schedule's \`requesters\`: none of them may approve its firings where allowSelfApproval is false.`,
      schema: { params: ScheduleParams, body: SchedulePatchSchema, response: { 200: ScheduleViewSchema, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Params, SchedulePatch>) => ({
        body: await schedules.update(ctx.params.id, ctx.body, ctx.identity.actor),
      }),
    }),
    writes.delete('/api/schedules/:id', {
      operationId: 'deleteSchedule',
      summary: 'Delete a user schedule (204); runs it already admitted stay',
      description: BUILT_IN,
      schema: { params: ScheduleParams, response: { 204: Type.Null(), 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Params>) => {
        await schedules.remove(ctx.params.id);
        return { statusCode: 204 };
      },
    }),
  ];
}
