import Type, { type Static } from 'typebox';
import { IDEMPOTENCY_KEY_PATTERN } from '../../lanes/payload-schemas.js';
import type { TaskRuntime } from '../../runtime/runtime.js';
import { operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import { Duplicate } from '../../runtime/trigger-answer.js';
import { QueuedReply } from './tasks.js';
import { triggerReply } from './tasks.js';

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

const RerunBody = Type.Object(
  {
    payload: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description: "top-level fields replacing the original run's; a field set to null is removed",
      }),
    ),
    idempotencyKey: Type.Optional(
      Type.String({
        pattern: IDEMPOTENCY_KEY_PATTERN,
        description: 'becomes the new run id (a second rerun with it is 200 duplicate-suppressed); absent: a fresh run id',
      }),
    ),
  },
  { additionalProperties: false },
);

/** POST /api/tasks/runs/:runId/rerun: a new run of the same type with the original's payload. */
export function runRerunRoutes(deps: { runtime: TaskRuntime }): RouteSpec[] {
  return [
    routeFamily({ tags: ['tasks'], access: operatorWrite }).post('/api/tasks/runs/:runId/rerun', {
      operationId: 'rerunTaskRun',
      summary: "Admit a new run of a run's type with its payload (changed as asked), linked by rerunOf / reruns[]",
      description:
        "Checked like a trigger and admitted through the same admission path (source `rerun`); answers like POST /api/tasks/trigger. The original's `__` keys and idempotency key are not copied. Approval-gated types are held again. 404 unknown run; 400 `invalid_request` for an internal type or a type the catalog no longer knows.",
      schema: { params: RunIdParams, body: RerunBody, response: { 202: QueuedReply, 200: Duplicate } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>, Static<typeof RerunBody>>) =>
        triggerReply(await deps.runtime.rerun(ctx.params.runId, ctx.body, ctx.identity)),
    }),
  ];
}
