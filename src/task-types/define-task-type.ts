import type { TSchema } from 'typebox';
import { ProgrammingError } from '../domain/errors.js';
import type { ResultViewSpec } from './result-view.js';
import type {
  BaselineConfidence,
  DependencyClass,
  ModelUse,
  OperationalStatus,
  ServiceFacts,
  TaskExecutor,
  TaskRole,
  TaskType,
  TaskTypeSource,
} from './task-type.js';

/**
 * What a task type module declares. Facts with a usual value may be left out: a type is public,
 * not approval-gated, low-risk, touches nothing beyond its scopes, reads no control-plane
 * snapshot, is no remediation and calls no model unless it says so.
 */
export interface TaskTypeInput<T extends string, P extends TSchema, R extends TSchema> {
  type: T;
  label: string;
  purpose: string;
  agentId: string | null;
  executor: TaskExecutor;
  toolGatePreflight?: boolean;
  internalOnly?: boolean;
  approvalGated?: boolean;
  highRiskWhenApproved?: boolean;
  affectedSurfaces?: string[];
  readsControlPlane?: boolean;
  remediation?: boolean;
  plannerSafe?: boolean;
  operationalStatus?: OperationalStatus;
  dependencyClass?: DependencyClass;
  baselineConfidence?: BaselineConfidence;
  dependencyRequirements?: string[];
  caveats?: string[];
  retryable: boolean;
  scopeFields?: string[];
  payloadSchema: P;
  resultSchema: R;
  resultView?: ResultViewSpec;
  skills?: string[];
  model?: Partial<ModelUse>;
  source?: TaskTypeSource;
  approvalInputSchema?: TSchema;
  roles?: TaskRole[];
  builtInSchedule?: ServiceFacts['builtInSchedule'];
}

/** The standard caveat of every spawned worker lane. */
const WORKER_CAVEAT = 'Runs as a spawned worker process; it fails the run when the worker reports no logical success.';

/**
 * An approval input schema's fields must be payload fields (the input is merged into the
 * payload) and never scope fields: admission checks those against the workspace boundary, and an
 * approver's input is merged after admission.
 */
function checkApprovalInputFields(input: TaskTypeInput<string, TSchema, TSchema>): void {
  const schema = input.approvalInputSchema;
  if (!schema) return;
  const fields = Object.keys((schema as { properties?: Record<string, unknown> }).properties ?? {});
  const payloadFields = Object.keys((input.payloadSchema as { properties?: Record<string, unknown> }).properties ?? {});
  const scopeRoots = (input.scopeFields ?? []).map((f) => f.split(/[.[]/)[0]);
  for (const field of fields) {
    if (!payloadFields.includes(field)) throw new ProgrammingError(`${input.type}: approval input field '${field}' is not a payload field`);
    if (scopeRoots.includes(field)) throw new ProgrammingError(`${input.type}: approval input field '${field}' is a scope field`);
  }
}

/**
 * A task type with its defaults filled in and frozen. A worker lane names its entrypoint first
 * among its requirements and carries the worker caveat, so a module states only what is its own.
 */
export function defineTaskType<const T extends string, P extends TSchema, R extends TSchema>(input: TaskTypeInput<T, P, R>): TaskType<T, P, R> {
  const internalOnly = input.internalOnly ?? false;
  const worker = input.executor === 'worker';
  const requirements = input.dependencyRequirements ?? [];
  const caveats = input.caveats ?? [];
  checkApprovalInputFields(input);
  return Object.freeze({
    type: input.type,
    label: input.label,
    purpose: input.purpose,
    agentId: input.agentId,
    internalOnly,
    publicTriggerable: !internalOnly,
    approvalGated: input.approvalGated ?? false,
    toolGatePreflight: input.toolGatePreflight ?? false,
    executor: input.executor,
    operationalStatus: input.operationalStatus ?? 'confirmed-working',
    dependencyClass: input.dependencyClass ?? (worker ? 'worker' : 'control-plane'),
    baselineConfidence: input.baselineConfidence ?? (worker ? 'medium' : 'high'),
    dependencyRequirements: worker && input.agentId ? [`${input.agentId} worker entrypoint (agents/${input.agentId})`, ...requirements] : [...requirements],
    caveats: worker ? [WORKER_CAVEAT, ...caveats] : [...caveats],
    retryable: input.retryable,
    scopeFields: [...(input.scopeFields ?? [])],
    readsControlPlane: input.readsControlPlane ?? false,
    highRiskWhenApproved: input.highRiskWhenApproved ?? false,
    affectedSurfaces: [...(input.affectedSurfaces ?? [])],
    remediation: input.remediation ?? false,
    plannerSafe: input.plannerSafe ?? false,
    roles: Object.freeze([...(input.roles ?? [])]),
    builtInSchedule: input.builtInSchedule ? Object.freeze({ ...input.builtInSchedule }) : null,
    source: input.source ?? 'builtin',
    payloadSchema: input.payloadSchema,
    resultSchema: input.resultSchema,
    resultView: input.resultView ?? {},
    skills: Object.freeze([...(input.skills ?? [])]),
    model: Object.freeze({ tier: input.model?.tier ?? 'none', keepsContentLocal: input.model?.keepsContentLocal ?? false }),
    ...(input.approvalInputSchema ? { approvalInputSchema: input.approvalInputSchema } : {}),
  });
}
