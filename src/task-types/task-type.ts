import type { TSchema } from 'typebox';
import type { ResultViewSpec } from './result-view.js';

/**
 * What a task type is, in one record: the catalog's facts, the payload and result contracts, the
 * console's view of a result, the skills its lane exercises and its model tier. Each built-in type
 * declares one in its own folder (src/lanes/<type>/definition.ts); the registry gathers them and
 * every part of the service (admission, executor, catalog, OpenAPI, skills audit, console) reads
 * a type's facts from there. This module holds types only: worker processes load the definitions.
 */

export type TaskExecutor = 'handler' | 'worker';
export type OperationalStatus = 'confirmed-working' | 'partially-operational' | 'externally-dependent' | 'unconfirmed';
export type DependencyClass = 'control-plane' | 'worker' | 'external';
export type BaselineConfidence = 'high' | 'medium' | 'low';
export type ModelTier = 'none' | 'local' | 'standard';

/** The catalog's facts about a type, as the catalog route and every reader of the catalog see them. */
export interface CatalogFacts {
  type: string;
  label: string;
  purpose: string;
  /** The agent of the spec's Agent catalog that owns the lane; null for in-process handlers and planners. */
  agentId: string | null;
  /** Started by the service itself; the trigger route refuses it. */
  internalOnly: boolean;
  publicTriggerable: boolean;
  /** Held for an operator decision by default (payload.requiresApproval can force it for any type). */
  approvalGated: boolean;
  /** The lane checks its tool grants before executing (the spec's "Tool-gate preflight" column). */
  toolGatePreflight: boolean;
  executor: TaskExecutor;
  /** Honest state of the lane in this build; telemetry overlays never change it. */
  operationalStatus: OperationalStatus;
  dependencyClass: DependencyClass;
  baselineConfidence: BaselineConfidence;
  dependencyRequirements: string[];
  caveats: string[];
  /** A failed run may be retried automatically (false where a repeat could duplicate a side effect). */
  retryable: boolean;
  /**
   * Payload fields holding workspace-relative paths, checked against the workspace boundary at
   * admission. `a.b` selects a nested field, `a[].b` a field of every element of array `a`.
   */
  scopeFields: string[];
  /** The executor hands the lane a bounded snapshot of the control plane (src/worker-sdk/control-plane.ts). */
  readsControlPlane: boolean;
  /** Its work changes code, deployments or outside systems: an approval of it is high risk. */
  highRiskWhenApproved: boolean;
  /** What its work touches besides its payload's workspace scopes and its agent (shown on the approval screen). */
  affectedSurfaces: string[];
  /** An operator may start it as a manual incident remediation (POST /api/incidents/:id/remediate). */
  remediation: boolean;
}

/** Facts about a type that only the service's own planners read. */
export interface PlannerFacts {
  /**
   * The business planner may enqueue it on its own: bounded, local, read-only or text-only work
   * inside the service (no network, no code change, no deploy, nothing sent).
   */
  plannerSafe: boolean;
}

export interface ModelUse {
  /** `none`: the lane calls no model; `local`: only a local model may serve it; `standard`: any configured one. */
  tier: ModelTier;
  /** Its inputs (code, secrets, findings) must not leave the machine: only a local model may serve it. */
  keepsContentLocal: boolean;
}

/**
 * A part the service's own modules ask some type to play. They name the part, never a type: the
 * registry finds the one type whose module declares it (src/task-types/registry.ts `withRole`).
 * - `verifies-incidents`: checks an incident's remediation (the incidents module's default verifier);
 * - `indexes-docs`: indexes the docs folder (queued by a fast start);
 * - `drafts-community-replies`: drafts a reply to one RSS lead (the nightly batch's follow-up).
 */
export type TaskRole = 'verifies-incidents' | 'indexes-docs' | 'drafts-community-replies';

/** The configuration setting holding the cron of a type's built-in schedule. */
export type BuiltInCronSetting = 'heartbeatCron' | 'nightlyBatchCron';

/** Facts the service's own modules read from a type's module instead of naming the type. */
export interface ServiceFacts {
  /** The parts it plays for the service's own modules; at most one type plays each. */
  roles: readonly TaskRole[];
  /**
   * The service fires it on a cron of its own (src/scheduler/scheduler.ts), a built-in schedule
   * named after the type and listed beside the user schedules; each slot's run id is
   * `<type>:<minute>`. Null: no built-in schedule.
   */
  builtInSchedule: { cronSetting: BuiltInCronSetting } | null;
}

/** Where the type comes from: compiled into the service, or an operator's folder. */
export type TaskTypeSource = 'builtin' | 'operator';

export interface TaskType<T extends string = string, P extends TSchema = TSchema, R extends TSchema = TSchema> extends CatalogFacts, PlannerFacts, ServiceFacts {
  type: T;
  source: TaskTypeSource;
  /** The payload contract from admission to worker; its `examples[0]` seeds the console's trigger form. */
  payloadSchema: P;
  /** What a successful run's result holds; checked before the result is stored. */
  resultSchema: R;
  /** Which fields of a result the console shows as verdict, findings, tests, text, gates, metrics. */
  resultView: ResultViewSpec;
  /** The skills its lane exercises: the tool-gate preflight refuses an agent not granted them all. */
  skills: readonly string[];
  model: ModelUse;
  /**
   * What an approver may add to the replay's payload when approving a held run of the type
   * (fields of the payload schema, never a scope field); absent: a decision carries no input.
   */
  approvalInputSchema?: TSchema;
}

/** The catalog entry a reader of the catalog gets: the facts without the schemas. */
export type CatalogEntry = CatalogFacts;
