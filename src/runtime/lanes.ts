import { ProgrammingError, type ErrorDetail } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { OrchestratorState, StateWithoutHistory } from '../domain/orchestrator-state.js';
import type { RunRecord, SpecialistContract } from '../domain/run-record.js';
import type { ApprovalImpact } from './approval-impact.js';
import type { CatalogEntry } from './catalog.js';
import type { HandlerInput, HandlerOutcome } from './handler-types.js';

/**
 * The one extension point of the runtime. Admission, the runner, the executor, finalize and the
 * approvals know a task type only by its catalog entry; whatever a lane needs beyond that (an
 * in-process handler, a gate before its worker spawns, extra worker input, effects once it
 * finished, words for the approval screen, a check of a client's request) it registers here from its own folder, and the
 * runtime calls the hooks without knowing which lane they serve.
 */
export interface LaneDefinition {
  type: string;
  /** In-process lanes (catalog executor `handler`): the handler, already bound to its narrow context. */
  handler?: BoundTaskHandler;
  /**
   * Worker lanes: runs right before the spawn. It may refuse the attempt (shared coordination
   * said no), hand the worker input of its own, and ask to be told when the attempt failed.
   */
  beforeSpawn?: (run: RunRecord) => Promise<SpawnGate>;
  /**
   * Worker lanes: input the worker cannot get otherwise (a policy, the service's paths, a
   * snapshot of the control plane), merged into its payload under service-reserved `__` keys.
   */
  workerInput?: (run: RunRecord) => Promise<Record<string, unknown>> | Record<string, unknown>;
  /** After the attempt's outcome is durable (success, failed or retrying): the lane's own effects. */
  afterFinish?: (run: RunRecord) => Promise<void>;
  /**
   * A run this lane's run admitted as its child (`workflowParent`) finished, or an operator
   * decided it while it was held: the parent's lane moves its own work on. Errors are its own.
   */
  afterChildFinish?: (child: RunRecord) => Promise<void>;
  /** At start, after restart recovery and before runs are claimed: the lane picks up what a crash cut short. */
  atStart?: () => Promise<void>;
  /** Refines what an operator reads about a held run before deciding (src/runtime/approval-impact.ts). */
  approvalImpact?: (run: RunRecord, impact: ApprovalImpact) => ApprovalImpact;
  /**
   * Called by the trigger check on every admission path, after its own checks: what makes a run
   * of this type fail whatever happens (a setting the lane needs is missing or unusable, the
   * payload names something that is not there). Each problem names the setting
   * (`/config/<setting>`) or the payload field; any problem refuses the request before anything
   * is stored, so no run is queued or held for approval that can only fail. Quick and synchronous.
   */
  admissionCheck?: (payload: Record<string, unknown>) => ErrorDetail[];
  /**
   * A client's request, checked against who asks for it and what only the lane knows (who may
   * continue a work chain) before it is admitted: throws a DomainError (`forbidden`,
   * `invalid_request`) to refuse it.
   */
  requesterCheck?: (payload: Record<string, unknown>, identity: Identity) => Promise<void>;
}

/**
 * An in-process handler with its context bound: what the executor calls. A handler that never
 * reads the task history is given the document without it (`readsTaskHistory: false`), which a
 * shared database reads in one row instead of the row and 50 history records, on every run.
 */
export type BoundTaskHandler = BoundHandlerOf<true, OrchestratorState> | BoundHandlerOf<false, StateWithoutHistory>;

interface BoundHandlerOf<ReadsHistory extends boolean, State> {
  readsTaskHistory: ReadsHistory;
  run: (state: State, input: HandlerInput) => Promise<HandlerOutcome>;
  /** What the handler was bound to: its paths, policy and ports, never the whole configuration. */
  context: unknown;
}

/** What a lane's gate decided before the spawn. */
export interface SpawnGate {
  /** Set when the attempt must not start: the attempt is recorded coordination-blocked. */
  blocked?: BlockedAttempt | null;
  /** Worker input under service-reserved `__` keys, beside `workerInput`'s. */
  input?: Record<string, unknown>;
  /** Gives back what the gate took (claims, budget) when the attempt did not succeed. */
  onFailure?: () => Promise<void>;
}

/** A refused attempt as the run records it; nothing was spawned. */
export interface BlockedAttempt {
  reason: string;
  result: Record<string, unknown>;
  operatorSummary: string;
  recommendedNextActions: string[];
  specialistContract: SpecialistContract | null;
}

export interface LaneRegistry {
  /** The hooks of a type (an empty definition when the lane registered none). */
  get(type: string): LaneDefinition;
  /** Every registered type, for checks and docs. */
  types(): string[];
  /** Every type's hooks that registered `hook`, in registration order. */
  withHook<K extends (typeof HOOKS)[number]>(hook: K): Array<LaneDefinition & Required<Pick<LaneDefinition, K>>>;
}

const HOOKS = ['handler', 'beforeSpawn', 'workerInput', 'afterFinish', 'afterChildFinish', 'atStart', 'approvalImpact', 'admissionCheck', 'requesterCheck'] as const;
const WORKER_ONLY = ['beforeSpawn', 'workerInput'] as const;

/**
 * Builds the registry from the lanes' definitions, checked against the catalog at start: a hook
 * for a type the catalog does not know, a handler for a worker lane, spawn hooks for a handler,
 * a hook registered twice, or a handler missing for an in-process type is a wiring bug, and the
 * service refuses to start with it rather than fail the first run of that type.
 */
export function createLaneRegistry(catalog: readonly CatalogEntry[], definitions: readonly LaneDefinition[]): LaneRegistry {
  const entries = new Map(catalog.map((entry) => [entry.type, entry]));
  const lanes = new Map<string, LaneDefinition>();
  for (const definition of definitions) {
    const entry = entries.get(definition.type);
    if (!entry) throw new ProgrammingError(`lane hooks registered for unknown task type ${definition.type}`);
    if (definition.handler && entry.executor !== 'handler') {
      throw new ProgrammingError(`task type ${definition.type} runs as a worker; it cannot register an in-process handler`);
    }
    if (entry.executor === 'handler' && WORKER_ONLY.some((hook) => definition[hook])) {
      throw new ProgrammingError(`task type ${definition.type} runs in-process; it has no worker to gate or give input to`);
    }
    const merged: LaneDefinition = { ...(lanes.get(definition.type) ?? { type: definition.type }) };
    for (const hook of HOOKS) {
      if (!definition[hook]) continue;
      if (merged[hook]) throw new ProgrammingError(`task type ${definition.type} registered its ${hook} twice`);
      (merged as unknown as Record<string, unknown>)[hook] = definition[hook];
    }
    lanes.set(definition.type, merged);
  }
  for (const entry of catalog) {
    if (entry.executor === 'handler' && !lanes.get(entry.type)?.handler) {
      throw new ProgrammingError(`in-process task type ${entry.type} has no registered handler`);
    }
  }
  return {
    get: (type) => lanes.get(type) ?? { type },
    types: () => [...lanes.keys()],
    withHook: (hook) => [...lanes.values()].filter((lane) => lane[hook] !== undefined) as never,
  };
}
