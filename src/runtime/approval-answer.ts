import Type, { type Static } from 'typebox';

/*
 * The answers of the approval routes (pending list, one approval, a decision). The routes'
 * response schemas and the operator console's types both come from here; no Node APIs, so
 * browser code imports it.
 */

/** What an operator may decide on a held run. */
export const DECISIONS = ['approved', 'rejected'] as const;

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) => Type.Union([schema, Type.Null()]);
const Timestamp = Type.String({ format: 'date-time' });

export const DecisionEntrySchema = Type.Object(
  {
    at: Timestamp,
    actor: Type.String({ description: 'the deciding key\'s actor, or `service` for expiry and escalation' }),
    decision: Type.Enum(['approved', 'rejected', 'expired', 'escalated', 'cancelled']),
    note: Nullable(Type.String()),
    input: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'what the approver merged into the replay\'s payload' })),
  },
  { additionalProperties: false },
);

export const ApprovalProgressSchema = Type.Object(
  {
    received: Type.Integer({ minimum: 0, description: 'distinct actors who approved so far' }),
    required: Type.Integer({ minimum: 1, description: 'approvals that admit the replay (approvalPolicy.requiredApprovals)' }),
  },
  { additionalProperties: false, description: 'progress toward the quorum: shown as "1 of 2 approvals" while pending' },
);
export type ApprovalProgress = Static<typeof ApprovalProgressSchema>;

/** "1 of 2 approvals": how the console, the command line and the bridge name an approval's progress. */
export const approvalProgressText = (p: ApprovalProgress): string => `${p.received} of ${p.required} approval${p.required === 1 ? '' : 's'}`;

/**
 * The progress an approval answer carries, read from a loosely typed answer (the command line's
 * and the bridge's client); null when it carries none.
 */
export function approvalProgressOf(approval: unknown): ApprovalProgress | null {
  const p = (approval as { approvals?: unknown } | null | undefined)?.approvals as Partial<ApprovalProgress> | undefined;
  return p && typeof p.received === 'number' && typeof p.required === 'number' ? { received: p.received, required: p.required } : null;
}

/** Whether an approval still waits for more approvals than it has: shown where the quorum is more than one. */
export const awaitsQuorum = (p: ApprovalProgress | null): p is ApprovalProgress => p !== null && p.required > 1;

/** The fields every approval answer carries (src/runtime/approvals.ts `approvalView`). */
export const approvalFields = {
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  required: Type.Boolean(),
  status: Type.String({ description: 'not-required, pending, approved, rejected, expired or cancelled' }),
  reason: Nullable(Type.String()),
  requestedBy: Nullable(Type.String({ description: 'the actor whose key requested the held run' })),
  requesters: Type.Array(Type.String(), {
    description:
      'every actor the held work is requested by: the requesting key\'s actor and whoever shaped the work (a schedule\'s creator and changers, a rerun\'s original requesters); none of them may decide it where allowSelfApproval is false. Empty when no approval was required',
  }),
  requestedAt: Nullable(Timestamp),
  expiresAt: Nullable(Type.String({ format: 'date-time', description: 'when the service decides it (approvalPolicy); null: never' })),
  decidedAt: Nullable(Timestamp),
  decidedBy: Nullable(Type.String()),
  note: Nullable(Type.String({ description: '`expired` when the service rejected it at expiry' })),
  replayRunId: Nullable(Type.String()),
  replayTaskId: Nullable(Type.String()),
  decisionHistory: Type.Array(DecisionEntrySchema, { description: 'decisions, expiry, escalation and cancel, oldest first' }),
  approvals: ApprovalProgressSchema,
};

export const ApprovalDetail = {
  ...approvalFields,
  impact: Nullable(
    Type.Object(
      {
        riskLevel: Type.Optional(Type.Enum(['high', 'medium', 'low'])),
        approvalReason: Type.Optional(Type.String()),
        dependencyClass: Type.Optional(Type.String()),
        affectedSurfaces: Type.Optional(Type.Array(Type.String())),
        dependencyRequirements: Type.Optional(Type.Array(Type.String())),
        caveats: Type.Optional(Type.Array(Type.String())),
      },
      { additionalProperties: true, description: 'what approving would touch (src/runtime/approval-impact.ts)' },
    ),
  ),
  payloadPreview: Type.Object({ keyCount: Type.Integer(), keys: Type.Array(Type.String()), internalKeyCount: Type.Integer() }),
  policy: Type.Object(
    {
      approverRole: Type.Union([Type.Literal('operator'), Type.Literal('admin')]),
      allowSelfApproval: Type.Boolean(),
      onExpiry: Type.Union([Type.Literal('reject'), Type.Literal('escalate')]),
      requiredApprovals: Type.Integer({ minimum: 1 }),
      approverGroups: Type.Array(Type.String(), { description: 'only keys in one of these groups may decide; empty: any key of approverRole' }),
    },
    { description: 'the approvalPolicy that applies to the type' },
  ),
  approvalInputSchema: Nullable(
    Type.Record(Type.String(), Type.Unknown(), {
      description: 'the JSON schema of the `input` an approval may carry (merged into the replay\'s payload); null: the type takes none',
    }),
  ),
};


export const PendingApprovalSchema = Type.Object(ApprovalDetail, { additionalProperties: true });
export type PendingApproval = Static<typeof PendingApprovalSchema>;

export const PendingApprovalsSchema = Type.Object({ count: Type.Integer(), pending: Type.Array(PendingApprovalSchema) });
export type PendingApprovals = Static<typeof PendingApprovalsSchema>;

export const ApprovalWithPayloadSchema = Type.Object({ ...ApprovalDetail, payload: Type.Record(Type.String(), Type.Unknown()) }, { additionalProperties: true });
export type ApprovalWithPayload = Static<typeof ApprovalWithPayloadSchema>;

export const DecisionAnswerSchema = Type.Object(
  {
    status: Type.Literal('ok'),
    approval: Type.Object(approvalFields, { additionalProperties: true }),
    replayTaskId: Type.Optional(Type.String()),
    replayRunId: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
export type DecisionAnswer = Static<typeof DecisionAnswerSchema>;
