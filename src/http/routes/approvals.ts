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

const ApprovalIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200, description: 'the held task id (taskId of the held run)' }) });

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

const DecisionEntry = Type.Object(
  {
    at: Timestamp,
    actor: Type.String({ description: 'the deciding key\'s actor, or `service` for expiry and escalation' }),
    decision: Type.Union(['approved', 'rejected', 'expired', 'escalated', 'cancelled'].map((d) => Type.Literal(d))),
    note: Nullable(Type.String()),
  },
  { additionalProperties: false },
);

/** The fields every approval answer carries (src/tasks/approvals.ts `approvalView`). */
const approvalFields = {
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  status: Type.String({ description: 'not-required, pending, approved, rejected, expired or cancelled' }),
  reason: Nullable(Type.String()),
  requestedBy: Nullable(Type.String({ description: 'the actor whose key requested the held run' })),
  requestedAt: Nullable(Timestamp),
  expiresAt: Nullable(Type.String({ format: 'date-time', description: 'when the service decides it (approvalPolicy); null: never' })),
  decidedAt: Nullable(Timestamp),
  decidedBy: Nullable(Type.String()),
  note: Nullable(Type.String({ description: '`expired` when the service rejected it at expiry' })),
  replayRunId: Nullable(Type.String()),
  replayTaskId: Nullable(Type.String()),
  decisionHistory: Type.Array(DecisionEntry, { description: 'decisions, expiry, escalation and cancel, oldest first' }),
};

const ApprovalDetail = {
  ...approvalFields,
  impact: Nullable(Type.Object({}, { additionalProperties: true })),
  payloadPreview: Type.Object({ keyCount: Type.Integer(), keys: Type.Array(Type.String()), internalKeyCount: Type.Integer() }),
  policy: Type.Object(
    {
      approverRole: Type.Union([Type.Literal('operator'), Type.Literal('admin')]),
      allowSelfApproval: Type.Boolean(),
      onExpiry: Type.Union([Type.Literal('reject'), Type.Literal('escalate')]),
    },
    { description: 'the approvalPolicy that applies to the type' },
  ),
};

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
          200: Type.Object({
            count: Type.Integer(),
            pending: Type.Array(Type.Object(ApprovalDetail, { additionalProperties: true })),
          }),
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
          200: Type.Object(
            { ...ApprovalDetail, payload: Type.Record(Type.String(), Type.Unknown()) },
            { additionalProperties: true },
          ),
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>>) => ({ body: await approvals.get(ctx.params.id) }),
    },
    {
      method: 'POST',
      path: '/api/approvals/:id/decision',
      operationId: 'decideApproval',
      summary: 'Approve (replay under approval-replay:<task_id>) or reject (the held run fails) a held task',
      description:
        'approvalPolicy decides who may: a role below `approverRole`, or the requester where `allowSelfApproval` is false, gets 403 `forbidden`. An approval past its expiry under `onExpiry: "reject"` is rejected by the service and answers 409.',
      tags: ['approvals'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      schema: {
        params: ApprovalIdParams,
        body: DecisionBody,
        response: {
          200: Type.Object(
            {
              status: Type.Literal('ok'),
              approval: Type.Object(approvalFields, { additionalProperties: true }),
              replayTaskId: Type.Optional(Type.String()),
              replayRunId: Type.Optional(Type.String()),
            },
            { additionalProperties: false },
          ),
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>, Static<typeof DecisionBody>>) => ({
        body: await approvals.decide(ctx.params.id, ctx.body.decision, ctx.body.note ?? null, ctx.identity),
      }),
    },
  ];
}
