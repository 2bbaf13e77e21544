import { actorList } from './run-requesters.js';
import { normalizedTags } from '../domain/run-tags.js';
import { attemptIdOf, withEvent } from '../domain/run-events.js';

// The run's event list and attempt ids are the run record's own rules (src/domain/run-events.ts),
// which the run logs and the model gateway apply too; the runtime's importers keep this path.
export { attemptIdOf, MAX_RUN_EVENTS, withEvent } from '../domain/run-events.js';
import { DEFAULT_PRIORITY, type FlowStepLink, type QueueAttemptState, type QueuePlacement, type RetryRecovery, type RunAccounting, type RunRecord, type RunToolGate, type SpecialistContract, type WorkflowParent } from '../domain/run-record.js';

export const MAX_QUEUE_ATTEMPTS = 50;

export interface NewRunInput {
  runId: string;
  taskId: string;
  type: string;
  internal: boolean;
  payload: Record<string, unknown>;
  source: RunRecord['source'];
  requestedBy: string;
  /** Every actor the work is requested by; absent: `requestedBy` alone. */
  requesters?: readonly string[];
  now: Date;
  approvalRequired: boolean;
  approvalReason: string | null;
  approvedFromTaskId: string | null;
  workflowParent?: WorkflowParent | null;
  /** When a held run's approval expires (approvalPolicy); null or absent: never. */
  approvalExpiresAt?: string | null;
  /** A rerun: the run it repeats. */
  rerunOf?: string | null;
  /** A schedule's firing: the schedule that fired it. */
  scheduleId?: string | null;
  /** The admission span's trace context (tracing on). */
  traceparent?: string | null;
  /** A flow step (or its approval replay): the flow and step it serves. */
  flowStep?: FlowStepLink | null;
  /** A flow step admitted before its dependencies ended: stored `waiting`, promoted by src/flows/. */
  waiting?: boolean;
  /** Its concurrency key and priority; absent: unkeyed, DEFAULT_PRIORITY. */
  placement?: Partial<QueuePlacement>;
  /** No claim takes it before this instant (a trailing debounce's window end); absent: at once. */
  notBefore?: Date;
  /** Its tags (domain/run-tags.ts); absent or empty: none, and the record leaves the field out. */
  tags?: readonly string[];
}

/** Records a queue-attempt lifecycle entry for the run's current attempt. */
export function withAttemptState(run: RunRecord, at: Date, state: QueueAttemptState, detail?: string, ownerId?: string): RunRecord {
  const entry = {
    attemptId: attemptIdOf(run.runId, run.attempt),
    attempt: run.attempt,
    state,
    at: at.toISOString(),
    ...(detail ? { detail } : {}),
    ...(ownerId ? { ownerId } : {}),
  };
  return { ...run, queueAttempts: [...run.queueAttempts, entry].slice(-MAX_QUEUE_ATTEMPTS), updatedAt: at.toISOString() };
}

export function newRunRecord(input: NewRunInput): RunRecord {
  const at = input.now.toISOString();
  const requesters = input.requesters ? actorList(input.requesters) : [input.requestedBy];
  let run: RunRecord = {
    runId: input.runId,
    taskId: input.taskId,
    type: input.type,
    internal: input.internal,
    status: input.waiting ? 'waiting' : 'pending',
    queueState: input.waiting ? 'waiting' : input.approvalRequired ? 'held' : 'ready',
    seq: 0,
    payload: input.payload,
    source: input.source,
    requestedBy: input.requestedBy,
    requesters,
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    finishedAt: null,
    attempt: 1,
    claim: null,
    queueAttempts: [],
    events: [],
    approval: {
      required: input.approvalRequired,
      status: input.approvalRequired ? 'pending' : 'not-required',
      reason: input.approvalReason,
      requestedAt: input.approvalRequired ? at : null,
      decidedAt: null,
      decidedBy: null,
      note: null,
      replayRunId: null,
      replayTaskId: null,
      requestedBy: input.approvalRequired ? input.requestedBy : null,
      ...(input.approvalRequired ? { requesters } : {}),
      expiresAt: input.approvalRequired ? (input.approvalExpiresAt ?? null) : null,
      decisionHistory: [],
    },
    approvedFromTaskId: input.approvedFromTaskId,
    ...(input.workflowParent ? { workflowParent: input.workflowParent } : {}),
    ...(input.rerunOf ? { rerunOf: input.rerunOf } : {}),
    ...(input.scheduleId ? { scheduleId: input.scheduleId } : {}),
    ...(input.traceparent ? { traceparent: input.traceparent } : {}),
    ...(input.flowStep ? { flowStep: input.flowStep } : {}),
    concurrencyKey: input.placement?.concurrencyKey ?? null,
    priority: input.placement?.priority ?? DEFAULT_PRIORITY,
    ...(input.notBefore ? { notBefore: input.notBefore.toISOString() } : {}),
    ...(input.tags !== undefined && input.tags.length > 0 ? { tags: normalizedTags(input.tags) } : {}),
    retry: null,
    result: null,
    error: null,
    failureReason: null,
    accounting: null,
    operatorSummary: null,
    recommendedNextActions: null,
    specialistContract: null,
  };
  run = withAttemptState(run, input.now, 'admitted', `source ${input.source}`);
  run = withEvent(run, input.now, { kind: 'queue', name: 'admitted', detail: `admitted from ${input.source} by ${input.requestedBy}` });
  if (input.approvedFromTaskId) {
    run = withEvent(run, input.now, { kind: 'approval', name: 'replay-of-approved-task', data: { approvedFromTaskId: input.approvedFromTaskId } });
  }
  // A waiting flow step asks for its approval when it is promoted (withApprovalRequested), not before.
  if (input.waiting) return withEvent(run, input.now, { kind: 'queue', name: 'waiting-for-dependencies' });
  return input.approvalRequired ? withApprovalRequested(run, input.now) : run;
}

/** The held run's `awaiting-approval` attempt state and `approval-requested` event. */
export function withApprovalRequested(run: RunRecord, now: Date): RunRecord {
  const reason = run.approval.reason ?? undefined;
  const next = withAttemptState(run, now, 'awaiting-approval', reason);
  const expiresAt = next.approval.expiresAt;
  return withEvent(next, now, { kind: 'approval', name: 'approval-requested', detail: reason, ...(expiresAt ? { data: { expiresAt } } : {}) });
}

/** A retrying run whose persisted recovery record still allows another attempt. */
export function retryRecordMatches(run: RunRecord, type: string): run is RunRecord & { retry: RetryRecovery } {
  return (
    run.status === 'retrying' &&
    run.type === type &&
    run.retry !== null &&
    run.retry.attempt === run.attempt &&
    run.attempt < run.retry.retryLimit
  );
}

/** Re-admits a retrying run under a new attempt (a distinct durable queue-attempt identity). */
export function admitRetry(run: RunRecord & { retry: RetryRecovery }, now: Date, source: string): RunRecord {
  let next: RunRecord = { ...run, status: 'pending', queueState: 'ready', attempt: run.attempt + 1, claim: null, retry: null };
  next = withAttemptState(next, now, 'admitted', `retry ${next.attempt} of ${run.retry.retryLimit} (${source})`);
  return withEvent(next, now, {
    kind: 'retry',
    name: 'retry-admitted',
    detail: `attempt ${next.attempt} admitted after: ${run.retry.lastError}`,
    data: { attempt: next.attempt, retryLimit: run.retry.retryLimit },
  });
}

export function markRunning(run: RunRecord, ownerId: string, leaseUntil: Date, now: Date): RunRecord {
  let next: RunRecord = {
    ...run,
    status: 'running',
    queueState: null,
    startedAt: now.toISOString(),
    claim: { ownerId, leaseUntil: leaseUntil.toISOString() },
  };
  next = withAttemptState(next, now, 'running', undefined, ownerId);
  return withEvent(next, now, { kind: 'execution', name: 'started', detail: `attempt ${run.attempt} claimed by ${ownerId}` });
}

/** True when this owner still holds this attempt of the run (guards every finalization). */
export function isOwnedAttempt(run: RunRecord | null, ownerId: string, attempt: number): run is RunRecord {
  return run !== null && run.status === 'running' && run.claim?.ownerId === ownerId && run.attempt === attempt;
}

export interface CompletionFields {
  result: unknown;
  accounting: RunAccounting;
  operatorSummary: string | null;
  recommendedNextActions: string[] | null;
  specialistContract: SpecialistContract | null;
  toolGate?: RunToolGate;
}

export function markSucceeded(run: RunRecord, now: Date, fields: CompletionFields): RunRecord {
  let next: RunRecord = {
    ...run,
    ...fields,
    status: 'success',
    queueState: null,
    claim: null,
    finishedAt: now.toISOString(),
    error: null,
    failureReason: null,
  };
  next = withAttemptState(next, now, 'success');
  return withEvent(next, now, { kind: 'execution', name: 'succeeded' });
}

export interface FailureFields extends Partial<CompletionFields> {
  error: string;
  failureReason: string;
  /** Present when the failure is retryable and attempts remain. */
  retry: RetryRecovery | null;
}

export function markFailed(run: RunRecord, now: Date, fields: FailureFields): RunRecord {
  const { retry, ...rest } = fields;
  let next: RunRecord = {
    ...run,
    ...rest,
    status: retry ? 'retrying' : 'failed',
    queueState: null,
    claim: null,
    retry,
    finishedAt: now.toISOString(),
  };
  next = withAttemptState(next, now, 'failed', `${fields.failureReason}: ${fields.error}`);
  next = withEvent(next, now, { kind: 'execution', name: 'failed', detail: fields.error, data: { reason: fields.failureReason } });
  if (retry) {
    next = withEvent(next, now, {
      kind: 'retry',
      name: 'retry-scheduled',
      detail: `attempt ${retry.attempt + 1} of ${retry.retryLimit} at ${retry.nextRetryAt}`,
      data: { nextRetryAt: retry.nextRetryAt, backoffMs: retry.backoffMs },
    });
  }
  return next;
}

/**
 * A claimed attempt this instance cannot run, handed back to the queue as it was before the
 * claim: the same attempt, ready for an instance that can. An operator task type added by a
 * reload on another instance is the case: reload is per instance (docs/task-types.md).
 */
export function handBack(run: RunRecord, now: Date, detail: string): RunRecord {
  let next: RunRecord = { ...run, status: 'pending', queueState: 'ready', claim: null, startedAt: null };
  next = withAttemptState(next, now, 'admitted', detail);
  return withEvent(next, now, { kind: 'queue', name: 'handed-back', detail });
}

/**
 * Restart recovery of a run found `running`: retried once under a new attempt, else failed
 * `interrupted`. A run whose cancel was requested never comes here: recovery.ts ends it
 * `cancelled` (run-cancellation.ts markCancelled) before anything else is considered.
 */
export function recoverInterrupted(run: RunRecord, now: Date): RunRecord {
  const interruptions = (run.interruptions ?? 0) + 1;
  const detail = `interrupted during attempt ${run.attempt} (owner ${run.claim?.ownerId ?? 'unknown'})`;
  let next: RunRecord = withAttemptState({ ...run, interruptions }, now, 'failed', detail);
  if (interruptions <= 1) {
    next = { ...next, status: 'pending', queueState: 'ready', claim: null, attempt: run.attempt + 1 };
    next = withAttemptState(next, now, 'admitted', 'recovered after restart');
    return withEvent(next, now, { kind: 'queue', name: 'recovered-after-interruption', detail });
  }
  next = {
    ...next,
    status: 'failed',
    queueState: null,
    claim: null,
    finishedAt: now.toISOString(),
    error: `${detail}; already recovered once`,
    failureReason: 'interrupted',
  };
  return withEvent(next, now, { kind: 'execution', name: 'failed', detail: 'interrupted', data: { reason: 'interrupted' } });
}
