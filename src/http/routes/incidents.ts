import Type, { type Static } from 'typebox';
import { CacheTags } from '../../domain/cache-invalidation.js';
import { INCIDENT_SEVERITIES, INCIDENT_STATUSES } from '../../incidents/read-port.js';
import { REMEDIATION_TASK_TYPES, type IncidentService, type RemediationRequest } from '../../incidents/service.js';
import type { IncidentRecord } from '../../incidents/types.js';
import { ErrorBodySchema } from '../error-schema.js';
import { operatorWrite, routeFamily, viewerRead, type ProtectedContext, type RouteContext, type RouteSpec } from '../route-spec.js';

const literals = <T extends string>(values: readonly T[], description?: string) =>
  Type.Union(values.map((v) => Type.Literal(v)), description ? { description } : {});

const ListQuery = Type.Object(
  {
    status: Type.Optional(literals(INCIDENT_STATUSES)),
    severity: Type.Optional(literals(INCIDENT_SEVERITIES)),
    classification: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    includeResolved: Type.Optional(Type.Boolean({ description: 'exactly `true` or `false`; resolved incidents are left out by default' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);

const IdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const Note = Type.String({ maxLength: 2000 });
const AcknowledgeBody = Type.Object({ note: Type.Optional(Note) }, { additionalProperties: false });
const OwnerBody = Type.Object({ owner: Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' }), note: Type.Optional(Note) }, { additionalProperties: false });
const RemediateBody = Type.Object(
  {
    taskType: literals(REMEDIATION_TASK_TYPES),
    payload: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Task payload, checked as the trigger route checks it' })),
    note: Type.Optional(Note),
  },
  { additionalProperties: false },
);

const Open = (description: string) => Type.Object({}, { additionalProperties: true, description });
const IncidentSchema = Type.Object(
  {
    incidentId: Type.String({ format: 'uuid' }),
    fingerprint: Type.String(),
    classification: Type.String(),
    severity: literals(INCIDENT_SEVERITIES),
    status: literals(INCIDENT_STATUSES),
    title: Type.String(),
    firstSeenAt: Type.String({ format: 'date-time' }),
    lastSeenAt: Type.String({ format: 'date-time' }),
    acknowledged: Type.Boolean(),
    acknowledgedAt: Type.Union([Type.String(), Type.Null()]),
    acknowledgedBy: Type.Union([Type.String(), Type.Null()]),
    owner: Type.Union([Type.String(), Type.Null()]),
    history: Type.Array(Open('at, kind, actor, summary, data')),
    acknowledgements: Type.Array(Open('at, actor, note')),
    ownershipHistory: Type.Array(Open('at, owner, previousOwner, actor, source, note')),
    policyExecutions: Type.Array(Open('executionId, policyId, action, at, summary, taskType, runId, taskId, idempotencyKey, outcome')),
    remediationTasks: Type.Array(Open('taskId, runId, taskType, role, episode, attempt, status, requestedBy, requestedAt, updatedAt')),
    linkedRunIds: Type.Array(Type.String()),
    linkedRepairIds: Type.Array(Type.String()),
    linkedProofDeliveries: Type.Array(Type.String()),
    recommendedSteps: Type.Array(Type.String()),
    policy: Open('policyId, autoRetryBlockedRemediation, maxAutoRemediationAttempts, autoEscalateOnBreach, remediationTaskType, verifierTaskType, escalationTaskType, targetSlaMinutes'),
    escalation: Open('level, summary, dueAt'),
    verification: Open('required, status, summary'),
    remediation: Open('status, owner, nextAction, blockers[]'),
    remediationPlan: Type.Array(Open('step, title, taskType, status')),
  },
  { additionalProperties: true },
);

type Lifecycle = Record<'assignment' | 'execution' | 'verification' | 'resolution', IncidentRecord['history']>;
const PHASE_OF: Partial<Record<IncidentRecord['history'][number]['kind'], keyof Lifecycle>> = {
  'owner-changed': 'assignment',
  'remediation-queued': 'execution',
  'remediation-updated': 'execution',
  'verification-updated': 'verification',
  resolved: 'resolution',
  reopened: 'resolution',
};

/** The lifecycle stream of one incident: every array it keeps, and the remediation phases of its history. */
function historyView(record: IncidentRecord) {
  const lifecycle: Lifecycle = { assignment: [], execution: [], verification: [], resolution: [] };
  for (const entry of record.history) {
    const phase = entry.kind === 'policy' && entry.data?.action === 'queue-verifier' ? 'verification' : PHASE_OF[entry.kind];
    if (phase) lifecycle[phase].push(entry);
  }
  return {
    incidentId: record.incidentId,
    status: record.status,
    history: record.history,
    acknowledgements: record.acknowledgements,
    ownershipHistory: record.ownershipHistory,
    policyExecutions: record.policyExecutions,
    remediationTasks: record.remediationTasks,
    verification: record.verification,
    remediationLifecycle: lifecycle,
  };
}

const byIdTags = (ctx: RouteContext) => [CacheTags.incident((ctx.params as { id: string }).id)];

export function incidentRoutes(deps: { incidents: IncidentService }): RouteSpec[] {
  const { incidents } = deps;
  const { ledger } = incidents;
  const reads = routeFamily({ tags: ['incidents'], access: viewerRead });
  const writes = routeFamily({ tags: ['incidents'], access: operatorWrite });
  return [
    reads.get('/api/incidents', {
      operationId: 'listIncidents',
      summary: 'Incidents of the ledger, most severe and most recently seen first (resolved ones with includeResolved=true)',
      cache: { tags: [CacheTags.incidents] },
      schema: {
        querystring: ListQuery,
        response: {
          200: Type.Object({ total: Type.Integer(), limit: Type.Integer(), offset: Type.Integer(), incidents: Type.Array(IncidentSchema) }),
        },
      },
      handler: async (ctx: ProtectedContext<Static<typeof ListQuery>>) => ({ body: await ledger.list(ctx.query) }),
    }),
    reads.get('/api/incidents/:id', {
      operationId: 'getIncident',
      summary: 'One incident with its embedded lifecycle arrays and sub-objects',
      cache: { tags: byIdTags },
      schema: { params: IdParams, response: { 200: IncidentSchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof IdParams>>) => ({ body: await ledger.require(ctx.params.id) }),
    }),
    reads.get('/api/incidents/:id/history', {
      operationId: 'getIncidentHistory',
      summary: 'Lifecycle stream: history, acknowledgements, ownership, policy executions and the remediation task lifecycle',
      cache: { tags: byIdTags },
      schema: {
        params: IdParams,
        response: {
          200: Type.Object(
            {
              incidentId: Type.String(),
              history: Type.Array(Open('at, kind, actor, summary, data')),
              acknowledgements: Type.Array(Open('at, actor, note')),
              ownershipHistory: Type.Array(Open('at, owner, previousOwner, actor, source, note')),
              policyExecutions: Type.Array(Open('policy execution')),
              remediationTasks: Type.Array(Open('remediation task')),
              remediationLifecycle: Open('assignment, execution, verification, resolution: the history entries of each phase'),
            },
            { additionalProperties: true },
          ),
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof IdParams>>) => ({ body: historyView(await ledger.require(ctx.params.id)) }),
    }),
    writes.post('/api/incidents/:id/acknowledge', {
      operationId: 'acknowledgeIncident',
      summary: 'Acknowledge an incident (the actor is the key identity); a resolved incident is 409',
      schema: { params: IdParams, body: AcknowledgeBody, response: { 200: IncidentSchema, 409: ErrorBodySchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof IdParams>, Static<typeof AcknowledgeBody>>) => ({
        body: await ledger.acknowledge(ctx.params.id, ctx.identity, ctx.body?.note ?? null),
      }),
    }),
    writes.post('/api/incidents/:id/owner', {
      operationId: 'setIncidentOwner',
      summary: 'Set the owner of an incident',
      schema: { params: IdParams, body: OwnerBody, response: { 200: IncidentSchema } },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof IdParams>, Static<typeof OwnerBody>>) => ({
        body: await ledger.setOwner(ctx.params.id, ctx.body.owner.trim(), ctx.identity, ctx.body.note ?? null),
      }),
    }),
    writes.post('/api/incidents/:id/remediate', {
      operationId: 'remediateIncident',
      summary: 'Start a linked remediation task (drift-repair, build-refactor, qa-verification or system-monitor); build-refactor is held for approval',
      description:
        "The payload may be left out: a required workspace-path field (qa-verification's `target`, build-refactor's `scope`) is taken from the incident's scope; a required field the incident cannot supply is 400 `invalid_request` naming it in `details`.",
      schema: {
        params: IdParams,
        body: RemediateBody,
        response: {
          202: Type.Object(
            {
              status: Type.Union([Type.Literal('queued'), Type.Literal('awaiting-approval'), Type.Literal('duplicate-suppressed')]),
              incidentId: Type.String(),
              taskType: Type.String(),
              runId: Type.String(),
              taskId: Type.String(),
              approvalRequired: Type.Boolean(),
            },
            { additionalProperties: true },
          ),
        },
      },
      handler: async (ctx: ProtectedContext<unknown, Static<typeof IdParams>, RemediationRequest>) => ({
        statusCode: 202,
        body: await incidents.remediate(ctx.params.id, ctx.body, ctx.identity),
      }),
    }),
  ];
}
