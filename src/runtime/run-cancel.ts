import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict, notFound, ProgrammingError } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { RunRecord } from '../domain/run-record.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags } from './admission.js';
import { wasEscalated } from './approval-transitions.js';
import { applyCancelRequest, cancelDecisionFor, markCancelled, replyStatusOf, type CancelReplyStatus } from './run-cancellation.js';
import { noopServiceTracer, type ServiceTracer } from '../tracing/service-tracer.js';

export interface RunCancelDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  /** Stops the attempt if it runs in this process (the runner's fast path); false when it runs elsewhere. */
  stopLocal: (runId: string) => boolean;
  /** Told of a run that ended cancelled before it started (workflows, incidents and the lane's own hooks). */
  onRunFinished: (run: RunRecord) => Promise<void>;
  /** Resolves the approval-backlog incident of a held run whose approval had been escalated (approval-expiry.ts). */
  settleEscalation?: (run: RunRecord) => Promise<void>;
  /** Replaces the service's own secrets in the reason the run and its events keep (src/redaction/). */
  redact?: Pick<SecretRedactor, 'value'>;
}

export interface CancelReply {
  runId: string;
  status: CancelReplyStatus;
}

/** Longest `reason` kept on the run; the route refuses longer ones. */
export const MAX_CANCEL_REASON_CHARS = 1000;

/**
 * An operator's cancel of a run (docs/run-control.md, "Cancel"). The request is one
 * compare-and-set on the run, durable before the reply: a run that has not started ends
 * `cancelled` there and then (200 cancelled); a running one gets its `cancellation` recorded
 * first and is then stopped by the instance that owns its attempt (202 cancelling): at once when
 * that is this one, else within its next look at the store (Runner.checkCancels). Asking again
 * answers as the first time did and changes nothing; a finished run is a conflict.
 */
export function createRunCancel(deps: RunCancelDeps) {
  async function cancel(runId: string, reason: string | null, identity: Identity): Promise<CancelReply> {
    const now = deps.clock.now();
    const request = { actor: identity.actor, reason: deps.redact ? deps.redact.value(reason) : reason };
    const written = await deps.store.mutateRun(runId, (current) => (current ? applyCancelRequest(current, now, request) : null));
    const before = written.before;
    if (!before) throw notFound(`run ${runId}`);
    const decision = cancelDecisionFor(before);
    const status = replyStatusOf(decision);
    if (decision.kind === 'conflict' || status === null) throw conflict(decision.kind === 'conflict' ? decision.message : `run ${runId} cannot be cancelled`);
    if (!written.changed || !written.after) return { runId, status };
    const after = written.after;
    await deps.invalidator.invalidate(runWriteTags(after, before.status));
    if (after.status === 'cancelled') {
      deps.logger.info({ runId, actor: identity.actor, was: before.status }, 'run cancelled before it started');
      // A cancel closes the approval as a decision would, so its escalation incident resolves too.
      if (wasEscalated(after)) await deps.settleEscalation?.(after);
      await deps.onRunFinished(after);
      return { runId, status: 'cancelled' };
    }
    if (after.status !== 'running') throw new ProgrammingError(`cancel of ${runId} left it ${after.status}`);
    const here = deps.stopLocal(runId);
    deps.logger.info({ runId, actor: identity.actor, owner: after.claim?.ownerId ?? null, here }, 'cancel of a running run requested');
    return { runId, status: 'cancelling' };
  }

  return { cancel };
}

export type RunCancel = ReturnType<typeof createRunCancel>;

/** What writing a stopped attempt's end needs. */
export interface CancelFinalizeDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  onRunFinished: (run: RunRecord) => Promise<void>;
  /** The finalize span of the cancelled attempt (src/tracing/); absent: tracing off. */
  tracer?: ServiceTracer;
}

/**
 * Writes the end of an attempt the runner stopped for a cancel: `cancelled` with how it was
 * stopped, only while `stillOwned` holds (the same owned-attempt guard as every finalization, so
 * a superseded attempt never writes). No task record, state change or follow-up of the attempt
 * is applied, and it is never retried. Returns the stored run, or null when it was not ours.
 */
export async function finalizeCancelledAttempt(
  deps: CancelFinalizeDeps,
  run: RunRecord,
  signal: string | null,
  stillOwned: (current: RunRecord | null) => current is RunRecord,
): Promise<RunRecord | null> {
  const span = (deps.tracer ?? noopServiceTracer).startFinalize(run);
  try {
    const stored = await writeCancelled(deps, run, signal, stillOwned);
    span.end(stored === null ? 'not-owned' : 'cancelled');
    return stored;
  } catch (err) {
    span.fail(err);
    throw err;
  }
}

async function writeCancelled(
  deps: CancelFinalizeDeps,
  run: RunRecord,
  signal: string | null,
  stillOwned: (current: RunRecord | null) => current is RunRecord,
): Promise<RunRecord | null> {
  const now = deps.clock.now();
  const written = await deps.store.mutateRun(run.runId, (current) =>
    stillOwned(current) ? { ...markCancelled(current, now, signal), workerDirectory: null } : null,
  );
  if (!written.changed || !written.after) {
    deps.logger.warn({ runId: run.runId, attempt: run.attempt }, 'cancelled attempt no longer owned; nothing written');
    return null;
  }
  await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
  deps.logger.info({ runId: run.runId, signal }, 'run cancelled');
  await deps.onRunFinished(written.after);
  return written.after;
}
