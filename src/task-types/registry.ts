import { ProgrammingError } from '../domain/errors.js';
import type { CatalogEntry, OperationalStatus, TaskRole, TaskType } from './task-type.js';

/**
 * The task types a service knows, gathered once at start. Everything that asks "what is this
 * type" (admission, executor, finalize, catalog, OpenAPI, skills audit, console) reads it here.
 */
export interface TaskTypeRegistry {
  get(type: string): TaskType | undefined;
  /** The type, or a programming error: for callers that hold an admitted run's type. */
  require(type: string): TaskType;
  has(type: string): boolean;
  /** Every type, in declaration order. */
  all(): readonly TaskType[];
  /** The types the catalog route lists: every one except the internal-only ones. */
  publicTypes(): readonly TaskType[];
  /** The one type that plays `role` for the service's own modules (task-type.ts TaskRole), if any. */
  withRole(role: TaskRole): TaskType | undefined;
  /** The types the service fires on a built-in schedule of their own, in declaration order. */
  scheduled(): readonly TaskType[];
}

export function createTaskTypeRegistry(types: readonly TaskType[]): TaskTypeRegistry {
  const byType = new Map<string, TaskType>();
  for (const t of types) {
    if (byType.has(t.type)) throw new ProgrammingError(`task type '${t.type}' is declared twice`);
    byType.set(t.type, t);
  }
  const byRole = new Map<TaskRole, TaskType>();
  for (const t of types) {
    for (const role of t.roles) {
      const other = byRole.get(role);
      if (other) throw new ProgrammingError(`task types '${other.type}' and '${t.type}' both declare the role '${role}'`);
      byRole.set(role, t);
    }
  }
  const all = Object.freeze([...types]);
  const publicTypes = Object.freeze(all.filter((t) => !t.internalOnly));
  const scheduled = Object.freeze(all.filter((t) => t.builtInSchedule !== null));
  return {
    get: (type) => byType.get(type),
    require(type) {
      const found = byType.get(type);
      if (!found) throw new ProgrammingError(`unknown task type '${type}'`);
      return found;
    },
    has: (type) => byType.has(type),
    all: () => all,
    publicTypes: () => publicTypes,
    withRole: (role) => byRole.get(role),
    scheduled: () => scheduled,
  };
}

/** The catalog facts of a type, without its schemas, view and hooks. */
export function catalogEntryOf(t: TaskType): CatalogEntry {
  return {
    type: t.type,
    label: t.label,
    purpose: t.purpose,
    agentId: t.agentId,
    internalOnly: t.internalOnly,
    publicTriggerable: t.publicTriggerable,
    approvalGated: t.approvalGated,
    toolGatePreflight: t.toolGatePreflight,
    executor: t.executor,
    operationalStatus: t.operationalStatus,
    dependencyClass: t.dependencyClass,
    baselineConfidence: t.baselineConfidence,
    dependencyRequirements: t.dependencyRequirements,
    caveats: t.caveats,
    retryable: t.retryable,
    scopeFields: t.scopeFields,
    readsControlPlane: t.readsControlPlane,
    highRiskWhenApproved: t.highRiskWhenApproved,
    affectedSurfaces: t.affectedSurfaces,
    remediation: t.remediation,
  };
}

const STATUS_LABEL: Record<OperationalStatus, string> = {
  'confirmed-working': 'confirmed working',
  'partially-operational': 'partially operational',
  'externally-dependent': 'externally dependent',
  unconfirmed: 'unconfirmed in latest sweep',
};

/** The spec's static classification labels for one entry, in the spec's wording. */
export function classificationLabels(e: CatalogEntry): string[] {
  const labels: string[] = [];
  if (e.internalOnly) labels.push('internal-only');
  if (e.publicTriggerable) labels.push('public-triggerable');
  if (e.approvalGated) labels.push('approval-gated');
  labels.push(STATUS_LABEL[e.operationalStatus]);
  return labels;
}
