import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { ApprovalWithPayloadSchema, DecisionAnswerSchema, DECISIONS, PendingApprovalsSchema } from '../../tasks/approval-answer.js';
import type { ProtectedContext, RouteSpec } from '../route-spec.js';
import type { TaskRuntime } from '../../tasks/runtime.js';

const DecisionBody = Type.Object(
  {
    decision: Type.Union(DECISIONS.map((d) => Type.Literal(d))),
    note: Type.Optional(Type.String({ maxLength: 2000 })),
    input: Type.Optional(
      Type.Record(Type.String(), Type.Unknown(), {
        description:
          'approval only: fields merged into the replay\'s payload, checked against the type\'s approval input schema (`approvalInputSchema` of the approval); reserved fields (`__…`, approval linkage, `idempotencyKey`, `requiresApproval`) are 400 `reserved_field`',
      }),
    ),
  },
  { additionalProperties: false },
);

const ApprovalIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'the held task id (taskId of the held run)' }) });

export function approvalRoutes(deps: { runtime: TaskRuntime }): RouteSpec[] {
  const { approvals } = deps.runtime;
  return [
    {
      method: 'GET',
      path: '/api/approvals/pending',
      operationId: 'listPendingApprovals',
      summary: 'Runs held for an operator decision, with impact, payload preview, requester, expiry and the policy that applies',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'viewer-read' },
      cache: { tags: [CacheTags.approvals] },
      schema: {
        response: {
          200: PendingApprovalsSchema,
        },
      },
      handler: async () => ({ body: await approvals.listPending() }),
    },
    {
      method: 'GET',
      path: '/api/approvals/:id',
      operationId: 'getApproval',
      summary: 'One approval by its id (the held task id), pending or decided, with its payload and decision history',
      description: 'The payload is shown without the service-reserved `__` keys. 404 `not_found` for an id that was never held.',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'viewer-read' },
      schema: {
        params: ApprovalIdParams,
        response: {
          200: ApprovalWithPayloadSchema,
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>>) => ({ body: await approvals.get(ctx.params.id) }),
    },
    {
      method: 'POST',
      path: '/api/approvals/:id/decision',
      operationId: 'decideApproval',
      summary: 'Approve (replay under approval-replay:<task_id> once the quorum is reached) or reject (the held run fails) a held task',
      description:
        'approvalPolicy decides who may: a role below `approverRole`, a key outside `approverGroups` (when set), or one of the approval\'s `requesters` (whoever asked for or shaped the work) where `allowSelfApproval` is false, gets 403 `forbidden`. An approval short of `requiredApprovals` answers 200 with the approval still `pending`, its progress in `approval.approvals` and no replay fields; the approval that reaches the quorum admits the replay, and one rejection ends it. A second decision by the same actor, or one on an approval no longer pending, is 409 `conflict`. An approval past its expiry under `onExpiry: "reject"` is rejected by the service and answers 409.',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      schema: {
        params: ApprovalIdParams,
        body: DecisionBody,
        response: {
          200: DecisionAnswerSchema,
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>, Static<typeof DecisionBody>>) => ({
        body: await approvals.decide(ctx.params.id, ctx.body.decision, ctx.body.note ?? null, ctx.identity, ctx.body.input ?? null),
      }),
    },
  ];
}
