import type { Clock } from '../clock.js';
import { invalidRequest, pointer, type ErrorDetail } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { Admit } from '../runtime/admission.js';
import { getCatalogEntry, TASK_CATALOG } from '../runtime/catalog.js';
import { getPayloadSchema } from '../lanes/payload-schemas.js';
import type { CheckedTaskRequest, TaskRequest } from '../runtime/payload-validation.js';
import type { IncidentLedger } from './ledger.js';
import { keepNewest, normalize, withHistory } from './record.js';
import { INCIDENT_LINK_KEY } from './sources.js';
import { INCIDENT_BOUNDS, type IncidentRecord } from './types.js';
import { buildRefactorType } from '../lanes/build-refactor/definition.js';

/**
 * Manual remediation lanes (the spec's allowlist: drift-repair, build-refactor, qa-verification,
 * system-monitor): the catalog entries marked `remediation`, so the route, the service and the
 * console's choice (it reads the published catalog) name the same types.
 */
export const REMEDIATION_TASK_TYPES: readonly string[] = Object.freeze(TASK_CATALOG.filter((e) => e.remediation).map((e) => e.type));
export type RemediationTaskType = string;

/** Bounds a manual build-refactor remediation always carries, whatever the operator sent. */
export const MANUAL_CHANGE_MAX_FILES = 10;

export interface RemediationRequest {
  taskType: RemediationTaskType;
  payload?: Record<string, unknown>;
  note?: string;
}

export interface RemediationDeps {
  ledger: IncidentLedger;
  admit: Admit;
  /** The trigger route's request check (catalog, reserved fields, payload schema, workspace scopes). */
  checkTaskRequest: (request: TaskRequest) => CheckedTaskRequest;
  clock: Clock;
}

/** The workspace path an incident concerns: its own scope, else an alert's `scope` label. */
function incidentScopeOf(incident: IncidentRecord): string | null {
  const label = incident.labels.scope;
  return incident.scope ?? (typeof label === 'string' && label.trim() !== '' ? label.trim() : null);
}

/**
 * Fills what a remediation payload must carry and the operator left out, from the incident: a
 * required workspace-path field of the type (its catalog scope field, e.g. qa-verification's
 * `target`, build-refactor's `scope`) takes the incident's scope. A required field the incident
 * cannot supply is a 400 naming it, so `{taskType}` alone works for every type that needs nothing
 * more. The filled payload is then checked as a trigger's is (boundary included).
 */
export function withIncidentSuppliedFields(taskType: string, payload: Record<string, unknown>, incident: IncidentRecord): Record<string, unknown> {
  const required = (getPayloadSchema(taskType) as { required?: string[] } | undefined)?.required ?? [];
  const scopeFields = new Set(getCatalogEntry(taskType)?.scopeFields ?? []);
  const scope = incidentScopeOf(incident);
  const filled = { ...payload };
  const missing: ErrorDetail[] = [];
  for (const field of required) {
    if (filled[field] !== undefined) continue;
    if (scopeFields.has(field) && scope !== null) {
      filled[field] = scope;
      continue;
    }
    missing.push({
      path: pointer('body', 'payload', field),
      message: scopeFields.has(field)
        ? `is required: ${taskType} needs a workspace path and incident ${incident.incidentId} names no scope to take it from`
        : `is required: ${taskType} needs it and an incident cannot supply it`,
    });
  }
  if (missing.length > 0) {
    const names = missing.map((d) => d.path.split('/').pop()).join(', ');
    throw invalidRequest(`${taskType} needs ${names} in its payload, which incident ${incident.incidentId} cannot supply`, missing);
  }
  return filled;
}

/**
 * Starts an operator's remediation task for an incident through the trigger path's checks and
 * the one admission function, and links it. A build-refactor is always held for approval and
 * bounded: tests run after the change, at most MANUAL_CHANGE_MAX_FILES files, and its scope is
 * verified by qa-verification once it succeeds.
 */
export async function remediateIncident(deps: RemediationDeps, incidentId: string, request: RemediationRequest, identity: Identity) {
  const { ledger, clock } = deps;
  const incident = await ledger.require(incidentId);
  let payload = withIncidentSuppliedFields(request.taskType, { ...(request.payload ?? {}) }, incident);
  if (request.taskType === buildRefactorType.type) {
    const constraints = typeof payload.constraints === 'object' && payload.constraints !== null ? (payload.constraints as Record<string, unknown>) : {};
    const asked = typeof constraints.maxFilesChanged === 'number' ? constraints.maxFilesChanged : MANUAL_CHANGE_MAX_FILES;
    payload = { ...payload, requiresApproval: true, constraints: { ...constraints, runTests: true, maxFilesChanged: Math.min(asked, MANUAL_CHANGE_MAX_FILES) } };
  }
  const checked = deps.checkTaskRequest({ type: request.taskType, payload });
  const outcome = await deps.admit({
    type: checked.type,
    payload: { ...checked.payload, [INCIDENT_LINK_KEY]: incidentId },
    source: 'api',
    requestedBy: identity.actor,
  });
  const run = outcome.run;
  const held = run.queueState === 'held';
  const scope = request.taskType === buildRefactorType.type && typeof checked.payload.scope === 'string' ? checked.payload.scope : null;
  const now = clock.now();
  const at = now.toISOString();
  const stored = await ledger.mutate(incidentId, (current) => {
    if (!current || current.remediationTasks.some((t) => t.runId === run.runId)) return null;
    const task = {
      taskId: run.taskId,
      runId: run.runId,
      taskType: request.taskType,
      role: 'manual' as const,
      episode: current.episode,
      verifies: null,
      attempt: 1,
      status: held ? ('awaiting-approval' as const) : ('queued' as const),
      requestedBy: identity.actor,
      requestedAt: at,
      updatedAt: at,
      replayRunId: null,
      note: request.note ?? null,
    };
    const next: IncidentRecord = {
      ...current,
      scope: scope ?? current.scope,
      remediationTasks: keepNewest([...current.remediationTasks, task], INCIDENT_BOUNDS.remediationTasks),
      linkedRunIds: current.linkedRunIds.includes(run.runId) ? current.linkedRunIds : keepNewest([...current.linkedRunIds, run.runId], INCIDENT_BOUNDS.linkedIds),
      updatedAt: at,
    };
    return normalize(
      withHistory(next, {
        at,
        kind: 'remediation-queued',
        actor: identity.actor,
        summary: `${identity.actor} started ${request.taskType} run ${run.runId}${held ? ' (held for approval)' : ''}${request.note ? `: ${request.note}` : ''}`,
        data: { taskId: run.taskId, runId: run.runId, taskType: request.taskType, held },
      }),
    );
  });
  return {
    status: outcome.kind === 'duplicate' ? ('duplicate-suppressed' as const) : held ? ('awaiting-approval' as const) : ('queued' as const),
    incidentId,
    taskType: request.taskType,
    runId: run.runId,
    taskId: run.taskId,
    approvalRequired: run.approval.required,
    remediation: stored?.remediation ?? null,
    verification: stored?.verification ?? null,
  };
}
