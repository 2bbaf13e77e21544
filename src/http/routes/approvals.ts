import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { ApprovalWithPayloadSchema, DecisionAnswerSchema, DECISIONS, PendingApprovalsSchema } from '../../runtime/approval-answer.js';
import { operatorRead, operatorWrite, routeFamily, type ProtectedContext, type RouteSpec } from '../route-spec.js';
import type { TaskRuntime } from '../../runtime/runtime.js';
import { DEFAULT_LINK_MINUTES, MAX_LINK_APPROVERS, MAX_LINK_MINUTES, type ApprovalLinks } from '../../tokens/approval-links.js';

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

const LinksBody = Type.Object(
  {
    approvers: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      minItems: 1,
      maxItems: MAX_LINK_APPROVERS,
      description: 'actors (key labels without :version) of keys that may decide this approval',
    }),
    expiresInMinutes: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_LINK_MINUTES, description: `default ${DEFAULT_LINK_MINUTES}` })),
  },
  { additionalProperties: false },
);

const LinksAnswer = Type.Object({
  approvalId: Type.String(),
  links: Type.Array(
    Type.Object({
      actor: Type.String(),
      linkId: Type.String(),
      expiresAt: Type.String({ format: 'date-time' }),
      path: Type.String({ description: 'the console page; the one-time secret is in the URL fragment (#link=…), which browsers never send' }),
    }),
  ),
});

/** An approval link may show and decide the approval it names (src/tokens/approval-links.ts). */
const linkTarget = ({ params }: { params: Record<string, string> }) => ({ kind: 'approval' as const, approvalId: params.id ?? '' });

const LINK_NOTE =
  'Also answered to an approval link for this approval (`X-Approval-Link: <secret>`, or as the bearer), as the key of the approver it names.';

export function approvalRoutes(deps: { runtime: TaskRuntime; links: ApprovalLinks }): RouteSpec[] {
  const { approvals } = deps.runtime;
  const operatorReads = routeFamily({ tags: ['approvals'], access: operatorRead });
  const writes = routeFamily({ tags: ['approvals'], access: operatorWrite });
  return [
    operatorReads.get('/api/approvals/pending', {
      operationId: 'listPendingApprovals',
      summary: 'Runs held for an operator decision, with impact, payload preview, requester, expiry and the policy that applies',
      cache: { tags: [CacheTags.approvals] },
      schema: {
        response: {
          200: PendingApprovalsSchema,
        },
      },
      handler: async () => ({ body: await approvals.listPending() }),
    }),
    operatorReads.get('/api/approvals/:id', {
      operationId: 'getApproval',
      summary: 'One approval by its id (the held task id), pending or decided, with its payload and decision history',
      description: `The payload is shown without the service-reserved \`__\` keys. 404 \`not_found\` for an id that was never held. ${LINK_NOTE}`,
      tokenReads: linkTarget,
      schema: {
        params: ApprovalIdParams,
        response: {
          200: ApprovalWithPayloadSchema,
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>>) => ({ body: await approvals.get(ctx.params.id) }),
    }),
    writes.post('/api/approvals/:id/decision', {
      operationId: 'decideApproval',
      summary: 'Approve (replay under approval-replay:<task_id> once the quorum is reached) or reject (the held run fails) a held task',
      description:
        'approvalPolicy decides who may: a role below `approverRole`, a key outside `approverGroups` (when set), or one of the approval\'s `requesters` (whoever asked for or shaped the work) where `allowSelfApproval` is false, gets 403 `forbidden`. An approval short of `requiredApprovals` answers 200 with the approval still `pending`, its progress in `approval.approvals` and no replay fields; the approval that reaches the quorum admits the replay, and one rejection ends it. A second decision by the same actor, or one on an approval no longer pending, is 409 `conflict`. An approval past its expiry under `onExpiry: "reject"` is rejected by the service and answers 409. ' +
        LINK_NOTE +
        ' A link whose approver already decided (used once), or for an approval no longer pending, answers 409 saying so.',
      tokenReads: linkTarget,
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
    }),
    writes.post('/api/approvals/:id/links', {
      operationId: 'createApprovalLinks',
      summary: 'Single-use, expiring links that let named approvers decide this approval from a message (201)',
      description: `Each approver must be the actor of an active key allowed to decide it (role, groups, never a requester where self-approval is off) that has not decided it yet; one who is not answers 400 and no link is made. Links expire after \`expiresInMinutes\` (default ${DEFAULT_LINK_MINUTES}). ${LINK_NOTE} See docs/approvals-and-reruns.md.`,
      schema: { params: ApprovalIdParams, body: LinksBody, response: { 201: LinksAnswer } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof ApprovalIdParams>, Static<typeof LinksBody>>) => ({
        statusCode: 201,
        body: await deps.links.issue(ctx.params.id, ctx.body, ctx.identity),
      }),
    }),
  ];
}
