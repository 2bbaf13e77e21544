import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { DECISIONS } from '../../tasks/approvals.js';
import type { ProtectedContext, RouteSpec } from '../route-spec.js';
import type { TaskRuntime } from '../../tasks/runtime.js';

const DecisionBody = Type.Object(
  {
    decision: Type.Union(DECISIONS.map((d) => Type.Literal(d))),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
  },
  { additionalProperties: false },
);

const DecisionParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });

const ApprovalObject = Type.Object({}, { additionalProperties: true });

export function approvalRoutes(deps: { runtime: TaskRuntime }): RouteSpec[] {
  const { approvals } = deps.runtime;
  return [
    {
      method: 'GET',
      path: '/api/approvals/pending',
      operationId: 'listPendingApprovals',
      summary: 'Runs held for an operator decision, with impact and payload preview',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'viewer-read' },
      cache: { tags: [CacheTags.approvals] },
      schema: {
        response: {
          200: Type.Object({
            count: Type.Integer(),
            pending: Type.Array(
              Type.Object(
                {
                  taskId: Type.String(),
                  runId: Type.String(),
                  type: Type.String(),
                  impact: Type.Object({}, { additionalProperties: true }),
                  payloadPreview: Type.Object({ keyCount: Type.Integer(), keys: Type.Array(Type.String()), internalKeyCount: Type.Integer() }),
                },
                { additionalProperties: true },
              ),
            ),
          }),
        },
      },
      handler: async () => ({ body: await approvals.listPending() }),
    },
    {
      method: 'POST',
      path: '/api/approvals/:id/decision',
      operationId: 'decideApproval',
      summary: 'Approve (replay under approval-replay:<task_id>) or reject (the held run fails) a held task',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      schema: {
        params: DecisionParams,
        body: DecisionBody,
        response: {
          200: Type.Object(
            {
              status: Type.Literal('ok'),
              approval: ApprovalObject,
              replayTaskId: Type.Optional(Type.String()),
              replayRunId: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof DecisionParams>, Static<typeof DecisionBody>>) => ({
        body: await approvals.decide(ctx.params.id, ctx.body.decision, ctx.body.note ?? null, ctx.identity),
      }),
    },
  ];
}
