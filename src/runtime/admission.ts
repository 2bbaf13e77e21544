import { randomUUID } from 'node:crypto';
import type { Clock } from '../clock.js';
import { CacheTags, runListWriteTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { invalidRequest, ProgrammingError } from '../domain/errors.js';
import { jsonBoundsProblem } from '../domain/json-bounds.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { AppendRecord, MutateResult, RunMutator, StateStore } from '../store/types.js';
import { noopServiceTracer, type AdmissionSpan, type ServiceTracer } from '../tracing/service-tracer.js';
import { indexHeldRun } from './approval-index.js';
import { builtInApprovalPolicy, type ApprovalPolicy } from './approval-policy.js';
import { getCatalogEntry } from './catalog.js';
import { admitRetry, newRunRecord, retryRecordMatches } from './run-transitions.js';
import type { FlowStepLink, QueuePlacement, RunRecord, RunStatus, WorkflowParent } from '../domain/run-record.js';

export interface AdmissionRequest {
  type: string;
  payload: Record<string, unknown>;
  source: RunRecord['source'];
  requestedBy: string;
  /**
   * Every actor the work is requested by (src/runtime/run-requesters.ts); absent: `requestedBy`
   * alone. Whoever shaped work admitted on their behalf belongs here, so they cannot approve it.
   */
  requesters?: readonly string[];
  /** Run id chosen by the service itself (approval replays, scheduler slots); clients use payload.idempotencyKey. */
  forceRunId?: string;
  approvedFromTaskId?: string;
  /** Links a child run to the integration workflow that started it. */
  workflowParent?: WorkflowParent;
  /** A rerun (POST /api/tasks/runs/:runId/rerun): the run it repeats. */
  rerunOf?: string;
  /** A schedule's firing (`source: "schedule"`, run id `schedule:<id>:<fire time>` in forceRunId). */
  scheduleId?: string;
  /**
   * The caller's trace context (W3C traceparent): the HTTP request span, or the run this
   * admission continues (a retry, an approval replay). The admission span is its child.
   */
  traceparent?: string | null;
  /** A flow step, or an approval replay of one: the flow and step it serves (src/flows/). */
  flowStep?: FlowStepLink;
  /**
   * A flow step: stored `waiting` (no claim takes it, no slot is reserved) until the flow
   * promotes it once its dependencies ended (src/flows/flow-promotion.ts).
   */
  waiting?: boolean;
  /** Concurrency key and priority (src/runtime/placement-schema.ts); absent: unkeyed, default priority. */
  placement?: Partial<QueuePlacement>;
  /** Labels kept on the run (domain/run-tags.ts; the route schemas checked them); a rerun or replay passes its original's. */
  tags?: readonly string[];
  /**
   * A debounced trigger (src/runtime/debounce.ts): `forceRunId` is its window's run, and a run found
   * there is the window's, answered `debounced` and never re-admitted (not even a retrying one).
   * `trailing`: a found run still waiting to be claimed takes this trigger's payload.
   */
  debounced?: 'leading' | 'trailing';
  /** No claim takes the new run before this instant (a trailing debounce's window end); it is never started at admission. */
  notBefore?: Date;
}

export type DuplicateReason = `duplicate-${Exclude<RunStatus, 'retrying'>}` | 'duplicate-type-mismatch' | 'duplicate-retrying' | 'debounced';

export type AdmissionOutcome =
  | { kind: 'admitted'; run: RunRecord }
  | { kind: 'retry-admitted'; run: RunRecord }
  | { kind: 'duplicate'; run: RunRecord; reason: DuplicateReason };

export interface AdmissionDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  /** Called after a run became claimable so a runner can pick it up at once. */
  onReady: () => void;
  telemetryRetention: number;
  /** Sets a held run's approval expiry (config approvalPolicy); absent: approvals never expire. */
  approvalPolicy?: Pick<ApprovalPolicy, 'expiresAtFor'>;
  /** Spans of the admission (src/tracing/); absent: tracing off. */
  tracer?: ServiceTracer;
  /**
   * A free run slot of this instance's runner for a run about to be admitted (Runner.reserveSlot),
   * or null: the run is then queued. Absent: every run is queued.
   */
  reserveSlot?: (type: string, concurrencyKey: string | null) => SlotReservation | null;
  /** Replaces the service's own secrets in the payload before it is stored (src/redaction/); absent: kept as given. */
  redact?: Pick<SecretRedactor, 'value'>;
}

/**
 * A run slot held for an admission. A new run that is ready to claim is written already started
 * (`start`, in the admission's own commit) and handed to the runner after that commit
 * (`launch`); anything else gives the slot back (`release`). Exactly one of the two ends it.
 */
export interface SlotReservation {
  start(run: RunRecord): RunRecord;
  launch(run: RunRecord): void;
  release(): void;
}

function approvalReasonFor(type: string, gatedByDefault: boolean, payload: Record<string, unknown>): string | null {
  if (gatedByDefault) return `${type} is approval-gated by default`;
  if (payload.requiresApproval === true) return 'payload.requiresApproval is true';
  return null;
}

/**
 * The payload as the run keeps it, whoever admits it (a route, a schedule, a policy, a workflow):
 * within the JSON depth and size bounds (deeper would overflow the store's commit) and with every
 * secret of the service replaced, so no read of the run (record, list, events, approvals,
 * exports) and no worker ever sees one.
 */
function storedPayload(payload: Record<string, unknown>, redact: AdmissionDeps['redact']): Record<string, unknown> {
  const problem = jsonBoundsProblem(payload, 'The payload');
  if (problem) throw invalidRequest(problem.message, [{ path: '/body/payload', message: problem.message }]);
  return redact ? redact.value(payload) : payload;
}

/**
 * A trailing debounce's later trigger: the window's run takes its payload while it still waits to
 * be claimed (pending, ready). A run of another type, held for approval (the approver decides on
 * the payload it was held with) or already started is left as it is: null.
 */
function withLaterPayload(current: RunRecord, type: string, payload: Record<string, unknown>, now: Date): RunRecord | null {
  if (current.type !== type || current.status !== 'pending' || current.queueState !== 'ready') return null;
  return { ...current, payload, updatedAt: now.toISOString() };
}

function duplicateReason(existing: RunRecord, type: string, debounced: boolean): DuplicateReason {
  if (existing.type !== type) return 'duplicate-type-mismatch';
  if (debounced) return 'debounced';
  return existing.status === 'retrying' ? 'duplicate-retrying' : `duplicate-${existing.status}`;
}

/**
 * Tags of every cached read a run write can change. `previousStatus` is the run's status before
 * the write (null for a new run): runs-list pages are dropped only where the run was or now is.
 */
export function runWriteTags(run: Pick<RunRecord, 'runId' | 'type' | 'internal' | 'status'>, previousStatus?: RunStatus | null): string[] {
  return [
    CacheTags.runs,
    CacheTags.run(run.runId),
    CacheTags.approvals,
    CacheTags.catalog,
    ...runListWriteTags({ type: run.type, internal: run.internal, status: run.status, previousStatus }),
  ];
}

/**
 * The one admission path (HTTP trigger, scheduler, approval replays, retries, handler follow-ups).
 * The idempotency check is a single atomic read-modify-write in the store, so concurrent identical
 * requests, in this process or another sharing the store, admit at most one run. The promise
 * resolves only once the outcome is durable.
 */
export function createAdmission(deps: AdmissionDeps) {
  /** `accepted` and `queued` telemetry of a newly admitted key (never of a suppressed duplicate). */
  function telemetryOf(run: RunRecord): AppendRecord[] {
    const at = deps.clock.now().toISOString();
    const base = { runId: run.runId, taskId: run.taskId, type: run.type, attemptId: `${run.runId}#${run.attempt}`, at };
    return (['accepted', 'queued'] as const).map((event) => ({
      collection: 'telemetry' as const,
      record: { event, ...base },
      keep: deps.telemetryRetention,
    }));
  }
  const telemetryFor = (result: MutateResult): AppendRecord[] =>
    result.before === null && result.after !== null ? telemetryOf(result.after) : [];

  /** The run write, with its telemetry in the same commit (one durability round per admission, not two). */
  const storeRun = (runId: string, mutate: RunMutator): Promise<MutateResult> => deps.store.mutateRunAndAppend(runId, mutate, telemetryFor);

  const tracer = deps.tracer ?? noopServiceTracer;

  return async function admit(request: AdmissionRequest): Promise<AdmissionOutcome> {
    const span = tracer.startAdmission(request.type, request.source, request.traceparent);
    try {
      const outcome = await admitTraced(request, span);
      // A found run (duplicate, retry) keeps the trace its own admission started: linked, not joined.
      span.identify(outcome.run, outcome.kind === 'admitted' ? null : outcome.run.traceparent);
      span.end(outcome.kind === 'duplicate' ? outcome.reason : outcome.kind);
      return outcome;
    } catch (err) {
      span.fail(err);
      throw err;
    }
  };

  async function admitTraced(request: AdmissionRequest, span: AdmissionSpan): Promise<AdmissionOutcome> {
    const entry = getCatalogEntry(request.type);
    // Every caller checked the type first (the trigger route against the catalog, the service against its own constants).
    if (!entry) throw new ProgrammingError(`admission of unknown task type ${request.type}`);
    const payload = storedPayload(request.payload, deps.redact);
    const taskId = randomUUID();
    const keyFromPayload = typeof payload.idempotencyKey === 'string' ? payload.idempotencyKey : undefined;
    const runId = request.forceRunId ?? keyFromPayload ?? taskId;
    const now = deps.clock.now();
    // Approval replays are the approved work itself; everything else passes the approval gate.
    const approvalReason =
      request.source === 'approval-replay' ? null : approvalReasonFor(request.type, entry.approvalGated, payload);
    const approvalExpiresAt = approvalReason === null ? null : (deps.approvalPolicy ?? builtInApprovalPolicy).expiresAtFor(request.type, now);

    // Started in this admission's commit when a slot is free: on a shared store that saves the
    // run a claim transaction (a select and a rewrite of the whole record) before it starts.
    const slot = approvalReason === null && request.waiting !== true && request.notBefore === undefined ? (deps.reserveSlot?.(request.type, request.placement?.concurrencyKey ?? null) ?? null) : null;
    let outcome: MutateResult;
    try {
      outcome = await storeRun(runId, (current) => {
        if (!current) {
          const record = newRunRecord({
            runId,
            taskId,
            type: request.type,
            internal: entry.internalOnly,
            payload,
            source: request.source,
            requestedBy: request.requestedBy,
            requesters: request.requesters,
            now,
            approvalRequired: approvalReason !== null,
            approvalReason,
            approvedFromTaskId: request.approvedFromTaskId ?? null,
            workflowParent: request.workflowParent ?? null,
            approvalExpiresAt,
            rerunOf: request.rerunOf ?? null,
            scheduleId: request.scheduleId ?? null,
            traceparent: span.traceparent,
            flowStep: request.flowStep ?? null,
            waiting: request.waiting === true,
            placement: request.placement,
            notBefore: request.notBefore,
            tags: request.tags,
          });
          return slot !== null && record.queueState === 'ready' ? slot.start(record) : record;
        }
        if (request.debounced === 'trailing') return withLaterPayload(current, request.type, payload, now);
        if (request.debounced === undefined && retryRecordMatches(current, request.type)) return admitRetry(current, now, request.source);
        return null;
      });
    } catch (err) {
      slot?.release();
      throw err;
    }
    if (slot !== null && outcome.changed && outcome.before === null && outcome.after?.status === 'running') slot.launch(outcome.after);
    else slot?.release();

    if (!outcome.changed || !outcome.after) {
      const existing = outcome.before;
      if (!existing) throw new ProgrammingError(`admission of ${runId} neither stored nor found a run`);
      return { kind: 'duplicate', run: existing, reason: duplicateReason(existing, request.type, request.debounced !== undefined) };
    }
    const run = outcome.after;
    await deps.invalidator.invalidate(runWriteTags(run, outcome.before?.status ?? null));
    // A trailing debounce's later trigger changed the waiting run's payload: it answers as a duplicate.
    if (outcome.before !== null && request.debounced !== undefined) return { kind: 'duplicate', run, reason: 'debounced' };
    if (run.queueState === 'held') await indexHeldRun(deps.store, run);
    if (run.queueState === 'ready') deps.onReady();
    return { kind: outcome.before === null ? 'admitted' : 'retry-admitted', run };
  }
}

export type Admit = ReturnType<typeof createAdmission>;
