import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { jsonBoundsProblem, RESULT_BOUNDS } from '../domain/json-bounds.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { RunMutator, StateStore } from '../store/types.js';
import { noopServiceTracer, type ServiceTracer } from '../tracing/service-tracer.js';
import { runWriteTags, type Admit } from './admission.js';
import { accountingFor } from './accounting.js';
import { getTaskType } from './catalog.js';
import { describeResultProblems, resultProblems } from '../task-types/result-check.js';
import type { ExecutionOutcome } from './executor.js';
import { retryPlanFor } from './retry-policy.js';
import { retryWhileUnavailable } from './retry-while-unavailable.js';
import { markCancelled } from './run-cancellation.js';
import { actorList, requestersOf } from './run-requesters.js';
import { markFailed, markSucceeded, withAttemptState, withEvent } from './run-transitions.js';
import { withTaskRecord } from '../domain/orchestrator-state.js';
import type { RunRecord } from '../domain/run-record.js';
import type { TaskRecord } from '../domain/orchestrator-state.js';

export interface FinalizeDeps {
  config: Pick<AppConfig, 'retry'>;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  admit: Admit;
  onRunFinished: (run: RunRecord) => Promise<void>;
  /** The finalize span of each attempt (src/tracing/); absent: tracing off. */
  tracer?: ServiceTracer;
  /** Replaces the service's own secrets in what the attempt left (src/redaction/); absent: kept as given. */
  redact?: Pick<SecretRedactor, 'value'>;
}

/**
 * What of an attempt's outcome the run keeps. A result nested past the JSON depth bound would
 * overflow the store's commit: the attempt fails instead, saying so, and nothing of it is kept
 * (no retry: the lane would answer the same). Then every secret of the service is replaced in the
 * result, the error and the lane's summary, actions and contract, so neither the run nor the
 * events and task record made from them ever hold one.
 */
function recordedOutcome(type: string, outcome: ExecutionOutcome, redact: FinalizeDeps['redact']): ExecutionOutcome {
  const bounds =
    jsonBoundsProblem(outcome.result, "The attempt's result", RESULT_BOUNDS) ??
    jsonBoundsProblem(outcome.specialistContract, "The attempt's specialist contract", RESULT_BOUNDS);
  const problem = bounds ? { message: `${bounds.message}; it was not stored`, reason: 'result-too-deep' } : malformedResult(type, outcome);
  const kept: ExecutionOutcome = problem
    ? {
        ...outcome,
        ok: false,
        result: null,
        error: problem.message,
        failureReason: problem.reason,
        transient: false,
        stateUpdate: undefined,
        followUps: undefined,
        specialistContract: null,
      }
    : outcome;
  if (!redact) return kept;
  return {
    ...kept,
    result: redact.value(kept.result),
    error: redact.value(kept.error),
    operatorSummary: redact.value(kept.operatorSummary),
    recommendedNextActions: redact.value(kept.recommendedNextActions),
    specialistContract: redact.value(kept.specialistContract),
  };
}

/**
 * A successful result that does not match its type's result schema is a failed attempt, named
 * field by field, and never stored (no retry either: the lane would answer the same).
 */
function malformedResult(type: string, outcome: ExecutionOutcome): { message: string; reason: string } | null {
  const taskType = outcome.ok ? getTaskType(type) : undefined;
  if (!taskType) return null;
  const problems = resultProblems(taskType, outcome.result);
  return problems.length === 0 ? null : { message: describeResultProblems(type, problems), reason: 'invalid_result' };
}

/**
 * Records the outcome of one attempt: the state update and task record, the follow-up
 * admissions, and the run's final transition as a compare-and-set that applies only while
 * `stillOwned` holds. Without follow-ups, the state change and the transition are one atomic
 * commit (`finishRun`: a superseded attempt then applies neither). With follow-ups, side effects
 * go first: a crash before the transition re-executes or re-finalizes the attempt rather than
 * losing its effects, and follow-ups carry idempotency keys so they are not admitted twice.
 * A run whose cancel was requested while the attempt finished by itself (before its owner could
 * stop it) ends `cancelled` whatever the outcome, its result kept as evidence and never retried.
 * Returns the stored run, or null when the attempt was no longer ours.
 */
export async function finalizeAttempt(
  deps: FinalizeDeps,
  run: RunRecord,
  retryable: boolean,
  outcome: ExecutionOutcome,
  stillOwned: (current: RunRecord | null) => current is RunRecord,
  /** Evidence of how the outcome was obtained when not by this process (restart recovery). */
  provenance?: { name: string; detail: string },
): Promise<RunRecord | null> {
  const span = (deps.tracer ?? noopServiceTracer).startFinalize(run);
  try {
    const stored = await recordOutcome(deps, run, retryable, outcome, stillOwned, provenance);
    // The stored status says what the attempt led to: success, failed, retrying, cancelled.
    if (stored === null) span.end('not-owned');
    else span.end(stored.status, stored.status === 'failed' ? (stored.error ?? 'failed') : null);
    return stored;
  } catch (err) {
    span.fail(err);
    throw err;
  }
}

async function recordOutcome(
  deps: FinalizeDeps,
  run: RunRecord,
  retryable: boolean,
  given: ExecutionOutcome,
  stillOwned: (current: RunRecord | null) => current is RunRecord,
  provenance: { name: string; detail: string } | undefined,
): Promise<RunRecord | null> {
  const { store, clock } = deps;
  const outcome = recordedOutcome(run.type, given, deps.redact);
  const now = clock.now();
  const taskRecord: TaskRecord = {
    type: run.type,
    status: outcome.ok ? 'completed' : 'error',
    timestamp: now.toISOString(),
    durationMs: outcome.durationMs,
    ...(outcome.ok ? {} : { error: outcome.error ?? 'failed' }),
  };
  const stateUpdate = outcome.ok ? outcome.stateUpdate : undefined;
  const followUps = outcome.followUps ?? [];
  // Without follow-ups, the task's state change, its record and the run's transition are one
  // commit (one durability round). Follow-ups must be admitted after the state change and
  // before the run finishes, so that path keeps three writes.
  const together = followUps.length === 0;
  if (!together) {
    if (stateUpdate) {
      // A handler's own state change and the task record land in one atomic write.
      await store.mutateState((state) => withTaskRecord(stateUpdate(state), taskRecord));
    } else {
      await store.recordTask(taskRecord);
    }
  }
  for (const followUp of followUps) {
    // A follow-up carries on the run's work, for the same requesters.
    const requestedBy = `task:${run.type}`;
    await deps.admit({ type: followUp.type, payload: followUp.payload, source: 'system', requestedBy, requesters: actorList([requestedBy], requestersOf(run)) });
  }
  const transition: RunMutator = (owned) => {
    if (!stillOwned(owned)) return null;
    // The model calls the gateway recorded on the run while the attempt ran are its metering.
    const accounting = accountingFor(owned.modelCalls, outcome.durationMs);
    let current = provenance ? withEvent(owned, now, { kind: 'queue', ...provenance }) : owned;
    // The spec's coordination-blocked attempt entry: shared coordination refused the attempt.
    if (outcome.coordinationBlocked) current = withAttemptState(current, now, 'coordination-blocked', outcome.coordinationBlocked);
    const fields = {
      result: outcome.result,
      accounting,
      operatorSummary: outcome.operatorSummary,
      recommendedNextActions: outcome.recommendedNextActions,
      specialistContract: outcome.specialistContract,
      ...(outcome.toolGate ? { toolGate: outcome.toolGate } : {}),
    };
    if (current.cancellation) {
      return { ...markCancelled({ ...current, ...fields }, now, null, `attempt ${current.attempt} finished before it could be stopped`), workerDirectory: null };
    }
    if (outcome.ok) return { ...markSucceeded(current, now, fields), workerDirectory: null };
    const error = outcome.error ?? 'failed';
    return {
      ...markFailed(current, now, {
        ...fields,
        error,
        failureReason: outcome.failureReason ?? 'failed',
        retry: retryPlanFor(current, retryable, outcome.transient, error, deps.config.retry, now),
      }),
      workerDirectory: null,
    };
  };
  // The transition is a guarded compare-and-set (and finishRun one commit): repeating it after a
  // write that did not commit is safe, so a database restart does not turn into a second execution.
  const written = await retryWhileUnavailable(
    () =>
      together
        ? store.finishRun(run.runId, transition, { record: taskRecord, ...(stateUpdate ? { stateUpdate } : {}) })
        : store.mutateRun(run.runId, transition),
    deps.logger,
    { runId: run.runId, attempt: run.attempt },
  );
  if (!written.changed || !written.after) {
    deps.logger.warn({ runId: run.runId, attempt: run.attempt }, 'run attempt no longer owned; result discarded');
    return null;
  }
  await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
  await deps.onRunFinished(written.after);
  return written.after;
}
