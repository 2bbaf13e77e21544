import Type, { type Static } from 'typebox';
import { operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import { ErrorBodySchema } from '../error-schema.js';
import { MAX_CANCEL_REASON_CHARS } from '../../runtime/run-cancel.js';
import type { TaskRuntime } from '../../runtime/runtime.js';

const RunIdParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 400 }) });

const CancelBody = Type.Object(
  { reason: Type.Optional(Type.String({ maxLength: MAX_CANCEL_REASON_CHARS, description: 'kept on the run as cancellation.reason' })) },
  { additionalProperties: false },
);

const Cancelled = Type.Object(
  { runId: Type.String(), status: Type.Literal('cancelled') },
  { additionalProperties: false, description: 'the run had not started (pending, held or retrying) and is now cancelled; or it was cancelled before' },
);
const Cancelling = Type.Object(
  { runId: Type.String(), status: Type.Literal('cancelling') },
  {
    additionalProperties: false,
    description: 'the run is running: the request is recorded and its owner stops it; the run keeps `running` until its processes are gone, then `cancelled`',
  },
);

const DESCRIPTION = [
  'A pending, held or retrying run ends `cancelled` without starting (200; a held run\'s approval closes as `cancelled`).',
  'A running run answers 202 `cancelling`: an in-process handler\'s AbortSignal is aborted; a worker\'s process group gets SIGTERM, then SIGKILL after `cancelGraceMs`;',
  'the run becomes `cancelled` (never retried) once no process of it is left, with `cancellation.completedAt` and `signal`.',
  'A second cancel answers as the first did and changes nothing; a finished run is 409 `conflict`. Internal task types can be cancelled too.',
].join(' ');

/** `POST /api/tasks/runs/:runId/cancel` (docs/run-control.md, "Cancel"). */
export function runCancelRoutes(deps: { runtime: TaskRuntime }): RouteSpec[] {
  const { runtime } = deps;
  return [
    routeFamily({ tags: ['tasks'], access: operatorWrite }).post('/api/tasks/runs/:runId/cancel', {
      operationId: 'cancelTaskRun',
      summary: 'Cancel a run: one that has not started ends at once, a running one is stopped by its owner',
      description: DESCRIPTION,
      schema: { params: RunIdParams, body: CancelBody, response: { 200: Cancelled, 202: Cancelling, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof RunIdParams>, Static<typeof CancelBody> | undefined>) => {
        const reply = await runtime.cancelRun(ctx.params.runId, ctx.body?.reason ?? null, ctx.identity);
        return { statusCode: reply.status === 'cancelled' ? 200 : 202, body: reply };
      },
    }),
  ];
}
