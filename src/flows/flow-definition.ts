import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';

/** What a dependent does when a dependency did not succeed (failed, cancelled, rejected, skipped). */
export const DEPENDENCY_FAILURE_POLICIES = ['fail', 'skip', 'run'] as const;
export type DependencyFailurePolicy = (typeof DEPENDENCY_FAILURE_POLICIES)[number];

/** The bound: a larger flow is refused whole. */
export const MAX_FLOW_STEPS = 1000;

/** Flow ids and step keys: a step's run id is `flow:<flowId>:<key>`, so neither may hold a colon. */
export const FLOW_NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';
export const FLOW_NAME = new RegExp(FLOW_NAME_PATTERN);

export interface FlowStepDefinition {
  key: string;
  type: string;
  payload: Record<string, unknown>;
  dependsOn: string[];
  onDependencyFailure: DependencyFailurePolicy;
  /** Where the step's run queues (docs/queue.md); absent: unkeyed, default priority. */
  concurrencyKey?: string;
  priority?: number;
  /** The tags of the step's run (docs/tasks.md, "Run tags"); absent: none. */
  tags?: string[];
  /**
   * A rerun's step whose earlier success it reuses: that flow's step run (its result, or its
   * approval replay's, is what dependents read); the rerun admits no run of its own for it.
   */
  reusedRunId?: string;
}

export interface FlowScheduledBy {
  scheduleId: string;
  fireAt: string;
}

/** The stored flow (doc collection `flows`): written once, never changed (later facts live in their own docs). */
export interface FlowDoc {
  flowId: string;
  idempotencyKey: string | null;
  requestedBy: string;
  requesters: string[];
  createdAt: string;
  rerunOf: string | null;
  /**
   * The schedule firing that admitted it (docs/schedules.md): its id is derived from the schedule
   * and the fire time, and this tells such a flow from one a client made under the same id.
   */
  scheduledBy?: FlowScheduledBy;
  /** In an order where every step comes after its dependencies. */
  steps: FlowStepDefinition[];
}

/** The doc collections flows keep (insert-if-absent each, so instances never overwrite each other). */
export const FLOW_COLLECTIONS = {
  flows: 'flows',
  /** idempotency key -> flow id. */
  keys: 'flow-keys',
  /** A flow's cancel request: `{requestedAt, requestedBy, reason}`. */
  cancels: 'flow-cancels',
  /** A flow's end: `{status, endedAt}`, written by whichever instance first sees every step ended. */
  outcomes: 'flow-outcomes',
  /**
   * The flows not known to have ended (`{since}`), what the sweep walks: written before the flow
   * document, removed once its end is recorded, so the sweep never reads every flow ever made.
   */
  open: 'flow-open',
  /**
   * Written once every step run of a flow was admitted: from then on a missing step run was
   * removed by retention after it ended (`pruned`), and is never admitted again.
   */
  admitted: 'flow-admitted',
  /**
   * The listing of flows, newest first (`{flowId}` under flowListKey): GET /api/flows reads it a
   * page at a time (StateStore.listDocPage) instead of every flow document.
   */
  listing: 'flow-list',
  /**
   * `{at, step}` once a step of the flow is skipped under `fail`: written before that skip, so no
   * such skip is stored without it. Promotion reads it by id (every waiting step is skipped from
   * then on) instead of the flow's skipped runs.
   */
  failed: 'flow-failed',
  /** `{at}` under `v1` once the listing holds the flows admitted before it existed. */
  listingBuilt: 'flow-list-built',
} as const;

/**
 * A flow's key in the listing: its creation time (milliseconds, 15 digits) then its id in hex,
 * so byte order is creation order in every driver and collation, ties broken by id.
 */
export function flowListKey(doc: Pick<FlowDoc, 'flowId' | 'createdAt'>): string {
  const hex = [...new TextEncoder().encode(doc.flowId)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  return `${listKeyTime(doc.createdAt)}-${hex}`;
}

/** The listing key's time part: every key of a flow created at or after `iso` is at or above it. */
export function listKeyTime(iso: string): string {
  return String(Date.parse(iso)).padStart(15, '0');
}

/** A cursor a listing page handed out: a key of the listing (opaque to clients). */
export const FLOW_LIST_CURSOR = /^[0-9]{15}-[0-9a-f]{2,400}$/;

export function flowStepRunId(flowId: string, key: string): string {
  return `${SERVICE_RUN_ID_PREFIXES.flow}${flowId}:${key}`;
}

/** The run a step stands for: its own, or the earlier one a rerun reuses. */
export function stepRunIdOf(flowId: string, step: Pick<FlowStepDefinition, 'key' | 'reusedRunId'>): string {
  return step.reusedRunId ?? flowStepRunId(flowId, step.key);
}
