import Type, { type Static } from 'typebox';

/**
 * The business registry file, schema version 2.0.1. One TypeBox schema validates the file on
 * load (src/business/registry.ts) and documents it (docs/business.md). Unknown values are never
 * guessed: a KPI whose current value is not known carries `current: null` with an
 * `unknownReason`, a pipeline item of unknown value `valueUsd: null` with `valueUnknownReason`.
 */
export const REGISTRY_SCHEMA_VERSION = '2.0.1';

/** What a candidate asks to do. Only `internal-task` can ever be enqueued by the planner. */
export const ACTION_KINDS = [
  'internal-task',
  'outreach',
  'publishing',
  'deployment',
  'secret-access',
  'private-source-access',
  'commercial-commitment',
] as const;
export type ActionKind = (typeof ACTION_KINDS)[number];

const Id = Type.String({ minLength: 1, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$', description: 'Stable identifier.' });
const Timestamp = Type.String({ format: 'date-time', description: 'ISO 8601 timestamp.' });

export const ActionSchema = Type.Object(
  {
    kind: Type.Union(
      [
        Type.Literal('internal-task'),
        Type.Literal('outreach'),
        Type.Literal('publishing'),
        Type.Literal('deployment'),
        Type.Literal('secret-access'),
        Type.Literal('private-source-access'),
        Type.Literal('commercial-commitment'),
      ],
      { description: 'What the action does; only internal-task can be enqueued by the planner.' },
    ),
    summary: Type.String({ minLength: 1, maxLength: 500, description: 'What would be done, in one sentence.' }),
    taskType: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'internal-task: the task type to enqueue.' })),
    payload: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'internal-task: the task payload.' })),
  },
  { additionalProperties: false },
);

const KpiSchema = Type.Object(
  {
    id: Id,
    name: Type.String({ minLength: 1, maxLength: 200 }),
    unit: Type.Optional(Type.String({ maxLength: 50 })),
    target: Type.Union([Type.Number(), Type.Null()], { description: 'Target value; null when not set.' }),
    current: Type.Union([Type.Number(), Type.Null()], { description: 'Measured value; null when unknown (then unknownReason).' }),
    unknownReason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    /** Whether a higher value is better (default true). */
    higherIsBetter: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);

const InitiativeSchema = Type.Object(
  {
    id: Id,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    objective: Type.String({ minLength: 1, maxLength: 2000 }),
    priority: Type.Integer({ minimum: 1, maximum: 5, description: '1 is the highest priority.' }),
    status: Type.Union([Type.Literal('active'), Type.Literal('paused'), Type.Literal('done')]),
    kpis: Type.Array(KpiSchema, { maxItems: 50 }),
    nextAction: Type.Optional(ActionSchema),
    updatedAt: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);

const RiskSchema = Type.Object(
  {
    id: Id,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    likelihood: Type.Integer({ minimum: 1, maximum: 5 }),
    impact: Type.Integer({ minimum: 1, maximum: 5 }),
    status: Type.Union([Type.Literal('open'), Type.Literal('mitigated'), Type.Literal('accepted')]),
    mitigation: Type.Optional(ActionSchema),
  },
  { additionalProperties: false },
);

const CoverageGapSchema = Type.Object(
  {
    id: Id,
    area: Type.String({ minLength: 1, maxLength: 200 }),
    severity: Type.Union([Type.Literal('critical'), Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')]),
    description: Type.String({ minLength: 1, maxLength: 2000 }),
    initiativeId: Type.Optional(Id),
    nextAction: Type.Optional(ActionSchema),
  },
  { additionalProperties: false },
);

const PipelineItemSchema = Type.Object(
  {
    id: Id,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    stage: Type.Union([
      Type.Literal('lead'),
      Type.Literal('qualified'),
      Type.Literal('proposal'),
      Type.Literal('negotiation'),
      Type.Literal('won'),
      Type.Literal('lost'),
    ]),
    valueUsd: Type.Union([Type.Number({ minimum: 0 }), Type.Null()], { description: 'Deal value; null when unknown (then valueUnknownReason).' }),
    valueUnknownReason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
    nextAction: Type.Optional(ActionSchema),
    updatedAt: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);

const ApprovalPolicySchema = Type.Object(
  {
    autoEnqueueTaskTypes: Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
      maxItems: 20,
      description: 'Internal task types the planner may enqueue on its own (a subset of the service’s safe lanes).',
    }),
    maxTasksPerCycle: Type.Literal(1, { description: 'At most one task per cycle; the only accepted value is 1.' }),
    approver: Type.Optional(Type.String({ maxLength: 200, description: 'Who decides approval-gated candidates.' })),
  },
  { additionalProperties: false },
);

export const BusinessRegistrySchema = Type.Object(
  {
    schemaVersion: Type.Literal(REGISTRY_SCHEMA_VERSION),
    mission: Type.String({ minLength: 1, maxLength: 2000 }),
    updatedAt: Type.Optional(Timestamp),
    strategicInitiatives: Type.Array(InitiativeSchema, { maxItems: 200 }),
    businessRisks: Type.Array(RiskSchema, { maxItems: 200 }),
    coverageGaps: Type.Array(CoverageGapSchema, { maxItems: 200 }),
    approvalPolicy: ApprovalPolicySchema,
    pipeline: Type.Array(PipelineItemSchema, { maxItems: 500 }),
  },
  { additionalProperties: false },
);

export type BusinessRegistry = Static<typeof BusinessRegistrySchema>;
export type RegistryAction = Static<typeof ActionSchema>;
export type StrategicInitiative = BusinessRegistry['strategicInitiatives'][number];
export type BusinessRisk = BusinessRegistry['businessRisks'][number];
export type CoverageGap = BusinessRegistry['coverageGaps'][number];
export type PipelineItem = BusinessRegistry['pipeline'][number];
export type Kpi = StrategicInitiative['kpis'][number];
