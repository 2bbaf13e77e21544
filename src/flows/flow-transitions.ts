import type { FlowStepLink, RunRecord } from '../domain/run-record.js';
import { withApprovalRequested, withAttemptState, withEvent } from '../runtime/run-transitions.js';

/** A step still waiting for its dependencies, as stored: the only state promotion and skipping start from. */
export function isWaiting(run: RunRecord | null): run is RunRecord {
  return run !== null && run.status === 'waiting';
}

/**
 * Waiting -> pending: ready to claim, or held for its approval, which is asked for now (its
 * expiry counts from now, as long after the request as the admission's policy gave it). The
 * caller writes it as a compare-and-set on a run still `waiting` (StateStore.mutateRun).
 */
export function promoteWaiting(run: RunRecord, now: Date, payload: Record<string, unknown> = run.payload): RunRecord {
  const at = now.toISOString();
  let next: RunRecord = withEvent({ ...run, status: 'pending', payload }, now, { kind: 'queue', name: 'dependencies-ended', detail: 'promoted from waiting' });
  if (!run.approval.required) return { ...next, queueState: 'ready' };
  const { requestedAt, expiresAt } = run.approval;
  const ttl = requestedAt && expiresAt ? new Date(expiresAt).getTime() - new Date(requestedAt).getTime() : null;
  next = {
    ...next,
    queueState: 'held',
    approval: { ...next.approval, requestedAt: at, expiresAt: ttl === null ? null : new Date(now.getTime() + ttl).toISOString() },
  };
  return withApprovalRequested(next, now);
}

/** Waiting -> `skipped`: ended without running because of its dependencies (`flowStep.skipped` says which policy and why). */
export function skipWaiting(run: RunRecord, now: Date, skipped: NonNullable<FlowStepLink['skipped']>): RunRecord {
  const flowStep = { ...(run.flowStep ?? { flowId: '', key: '' }), skipped };
  let next: RunRecord = {
    ...run,
    status: 'skipped',
    queueState: null,
    claim: null,
    finishedAt: now.toISOString(),
    error: `skipped: ${skipped.reason}`,
    flowStep,
    ...(run.approval.required ? { approval: { ...run.approval, status: 'cancelled' as const, decidedAt: now.toISOString(), decidedBy: 'service' } } : {}),
  };
  next = withAttemptState(next, now, 'failed', `skipped: ${skipped.reason}`);
  return withEvent(next, now, { kind: 'queue', name: 'skipped', detail: skipped.reason, data: { policy: skipped.policy } });
}

/** Waiting -> failed without running: its payload could not be completed from its dependencies (`reason` names the reference). */
export function failWaiting(run: RunRecord, now: Date, reason: string): RunRecord {
  let next: RunRecord = { ...run, status: 'failed', queueState: null, claim: null, finishedAt: now.toISOString(), error: reason, failureReason: 'flow_reference' };
  next = withAttemptState(next, now, 'failed', reason);
  return withEvent(next, now, { kind: 'queue', name: 'payload-unresolved', detail: reason });
}
