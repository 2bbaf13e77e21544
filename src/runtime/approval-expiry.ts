import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags } from './admission.js';
import { approvalExpired, type ApprovalPolicy } from './approval-policy.js';
import { wasEscalated, withEscalation, withExpiryRejection } from './approval-transitions.js';

/** How often each instance looks for expired approvals; a decision after expiry settles it at once (approvals.ts). */
export const APPROVAL_EXPIRY_SWEEP_MS = 5000;
/** Held runs read per sweep, oldest first (the oldest expire first). */
const SWEEP_WINDOW = 10_000;

/**
 * What the service does with an approval that expired under `onExpiry: "escalate"`: the incidents
 * module implements it (src/incidents/approval-escalation.ts); the task runtime knows only this.
 */
export interface ApprovalEscalation {
  /** Opens the `approval-backlog` incident of the held run's expired approval; one per approval, however often called. */
  escalate(run: RunRecord): Promise<void>;
  /** The escalated approval was decided (or cancelled) after all: its incident resolves. */
  settle(run: RunRecord): Promise<void>;
}

export interface ApprovalExpiryDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  policy: ApprovalPolicy;
  escalation?: ApprovalEscalation;
  logger?: Logger;
  /** Told of a held run the service rejected (the workflow driver listens). */
  onDecided?: (run: RunRecord) => Promise<void>;
}

export interface SweepOutcome {
  rejected: string[];
  escalated: string[];
}

/**
 * Decides the approvals nobody decided in time: `rejected` (reason `expired`) or escalated, by
 * the type's `onExpiry`. Each step is a compare-and-set on the run record, so several instances
 * sweeping the same store decide each approval once.
 */
export function createApprovalExpiry(deps: ApprovalExpiryDeps) {
  const { store, clock } = deps;

  async function written(before: RunRecord | null, after: RunRecord): Promise<void> {
    await deps.invalidator.invalidate(runWriteTags(after, before?.status ?? null));
  }

  /** Rejects one expired approval; true when this call decided it. */
  async function expire(runId: string): Promise<boolean> {
    const now = clock.now();
    const result = await store.mutateRun(runId, (current) => (current && approvalExpired(current, now) ? withExpiryRejection(current, now) : null));
    if (!result.changed || !result.after) return false;
    await written(result.before, result.after);
    await deps.onDecided?.(result.after);
    if (wasEscalated(result.after)) await settleEscalation(result.after);
    return true;
  }

  /** Marks one expired approval escalated and opens its incident; true when this call escalated it. */
  async function escalate(runId: string): Promise<boolean> {
    const now = clock.now();
    const result = await store.mutateRun(runId, (current) => (current && approvalExpired(current, now) ? withEscalation(current, now) : null));
    if (!result.changed || !result.after) return false;
    await written(result.before, result.after);
    await deps.escalation?.escalate(result.after);
    return true;
  }

  /** An escalated approval was decided: its incident resolves (a failure is logged, the decision stands). */
  async function settleEscalation(run: RunRecord): Promise<void> {
    try {
      await deps.escalation?.settle(run);
    } catch (err) {
      deps.logger?.warn({ err, runId: run.runId }, 'could not resolve the incident of an escalated approval');
    }
  }

  async function sweep(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { rejected: [], escalated: [] };
    const now = clock.now();
    const held = await store.listRuns({ queueState: 'held', includeInternal: true, limit: SWEEP_WINDOW, order: 'oldest' });
    for (const run of held.items) {
      if (!approvalExpired(run, now)) continue;
      const fallback = deps.policy.forType(run.type).onExpiry;
      try {
        if (fallback === 'reject') {
          if (await expire(run.runId)) outcome.rejected.push(run.runId);
        } else if (await escalate(run.runId)) {
          outcome.escalated.push(run.runId);
        } else if (wasEscalated(run)) {
          // Escalated earlier, maybe by an instance that died before its incident was written:
          // opening it again is a no-op when it exists (one incident per approval).
          await deps.escalation?.escalate(run);
        }
      } catch (err) {
        deps.logger?.warn({ err, runId: run.runId }, 'approval expiry step failed; retried next sweep');
      }
    }
    return outcome;
  }

  let timer: NodeJS.Timeout | null = null;
  let sweeping: Promise<unknown> | null = null;

  /** One sweep at a time in this process; other instances are kept apart by the compare-and-set. */
  function sweepOnce(): Promise<unknown> {
    sweeping ??= sweep()
      .then((outcome) => {
        if (outcome.rejected.length + outcome.escalated.length > 0) deps.logger?.info(outcome, 'expired approvals decided');
      })
      .catch((err: unknown) => deps.logger?.error({ err }, 'approval expiry sweep failed'))
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  }

  function start(intervalMs = APPROVAL_EXPIRY_SWEEP_MS): void {
    if (timer) return;
    timer = setInterval(() => void sweepOnce(), intervalMs);
    timer.unref();
    void sweepOnce();
  }

  async function stop(): Promise<void> {
    if (timer) clearInterval(timer);
    timer = null;
    await sweeping;
  }

  return { sweep, expire, settleEscalation, start, stop };
}

export type ApprovalExpiry = ReturnType<typeof createApprovalExpiry>;
