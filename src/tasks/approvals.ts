import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type Admit } from './admission.js';
import { approvalImpact, payloadPreview } from './approval-impact.js';
import { APPROVAL_INDEX, indexHeldRun } from './approval-index.js';
import { getCatalogEntry } from './catalog.js';
import type { LaneRegistry } from './lanes.js';
import { withAttemptState, withEvent } from './run-transitions.js';
import type { RunApproval, RunRecord } from '../domain/run-record.js';

/** The run-id namespace of approval replays; only this module mints keys in it. */
export const APPROVAL_REPLAY_PREFIX = 'approval-replay:';
export const replayRunIdFor = (taskId: string) => `${APPROVAL_REPLAY_PREFIX}${taskId}`;

export const DECISIONS = ['approved', 'rejected'] as const;
export type Decision = (typeof DECISIONS)[number];

export interface DecisionResult {
  status: 'ok';
  approval: RunApproval & { taskId: string; runId: string };
  replayTaskId?: string;
  replayRunId?: string;
}

export interface ApprovalsDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  admit: Admit;
  lanes: LaneRegistry;
  /** Told of a held run a decision settled (rejected, or closed after its replay was admitted). */
  onDecided?: (run: RunRecord) => Promise<void>;
}

export function createApprovals(deps: ApprovalsDeps) {
  const { store, clock } = deps;

  async function listPending() {
    const { items, total } = await store.listRuns({ queueState: 'held', includeInternal: true, limit: 200, order: 'oldest' });
    const pending = items.map((run) => {
      const entry = getCatalogEntry(run.type);
      return {
        taskId: run.taskId,
        runId: run.runId,
        type: run.type,
        requestedAt: run.approval.requestedAt,
        requestedBy: run.requestedBy,
        status: run.approval.status,
        impact: entry ? approvalImpact(run, entry, deps.lanes) : null,
        payloadPreview: payloadPreview(run.payload),
      };
    });
    return { count: total, pending };
  }

  /**
   * Second half of an approval: admits the replay under `approval-replay:<task_id>` (idempotent)
   * and closes the held run as success. Safe to repeat; restart recovery calls it for decisions
   * recorded just before a crash.
   */
  async function completeApproval(held: RunRecord): Promise<{ replayTaskId: string; replayRunId: string }> {
    const replayRunId = replayRunIdFor(held.taskId);
    const outcome = await deps.admit({
      type: held.type,
      payload: held.payload,
      source: 'approval-replay',
      requestedBy: held.approval.decidedBy ?? 'approval',
      forceRunId: replayRunId,
      approvedFromTaskId: held.taskId,
      // An approved workflow step's work is the replay: it reports back to the same workflow.
      workflowParent: held.workflowParent ?? undefined,
    });
    const replayTaskId = outcome.run.taskId;
    const now = clock.now();
    const closed = await store.mutateRun(held.runId, (current) => {
      if (!current || current.status !== 'pending' || current.approval.status !== 'approved') return null;
      let next: RunRecord = {
        ...current,
        status: 'success',
        finishedAt: now.toISOString(),
        approval: { ...current.approval, replayRunId, replayTaskId },
      };
      next = withAttemptState(next, now, 'success', `approved; work replayed as ${replayRunId}`);
      return withEvent(next, now, { kind: 'approval', name: 'replay-admitted', data: { replayRunId, replayTaskId } });
    });
    if (closed.changed && closed.after) await deps.invalidator.invalidate(runWriteTags(closed.after, closed.before?.status));
    if (closed.after) await deps.onDecided?.(closed.after);
    return { replayTaskId, replayRunId };
  }

  async function decide(taskId: string, decision: Decision, note: string | null, identity: Identity): Promise<DecisionResult> {
    const index = await store.getDoc(APPROVAL_INDEX, taskId);
    if (!index || typeof index.runId !== 'string') throw notFound(`approval ${taskId}`);
    const now = clock.now();
    // The decision itself is one compare-and-set on the held run: of two concurrent decisions
    // exactly one finds it pending; the other gets 409.
    const written = await store.mutateRun(index.runId, (current) => {
      if (!current || current.taskId !== taskId || current.approval.status !== 'pending') return null;
      const approval: RunApproval = {
        ...current.approval,
        status: decision,
        decidedAt: now.toISOString(),
        decidedBy: identity.actor,
        note,
        replayRunId: decision === 'approved' ? replayRunIdFor(taskId) : null,
      };
      let next: RunRecord = { ...current, approval, queueState: null };
      next = withEvent(next, now, { kind: 'approval', name: decision, detail: note ?? undefined, data: { decidedBy: identity.actor } });
      if (decision === 'approved') return next;
      next = {
        ...next,
        status: 'failed',
        finishedAt: now.toISOString(),
        failureReason: 'approval_rejected',
        error: `approval rejected by ${identity.actor}${note ? `: ${note}` : ''}`,
      };
      return withAttemptState(next, now, 'failed', 'approval_rejected');
    });
    if (!written.changed || !written.after) {
      if (!written.before) throw notFound(`approval ${taskId}`);
      throw conflict(`approval ${taskId} is no longer pending (status ${written.before.approval.status})`);
    }
    await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
    const approval = { ...written.after.approval, taskId, runId: written.after.runId };
    if (decision === 'rejected') {
      await deps.onDecided?.(written.after);
      return { status: 'ok', approval };
    }
    const replay = await completeApproval(written.after);
    return { status: 'ok', approval: { ...approval, replayTaskId: replay.replayTaskId }, ...replay };
  }

  /** Restart repair: index every held run and finish approvals decided just before a crash. */
  async function recover(): Promise<number> {
    let repaired = 0;
    const held = await store.listRuns({ queueState: 'held', includeInternal: true, limit: 10_000 });
    for (const run of held.items) {
      if (!(await store.getDoc(APPROVAL_INDEX, run.taskId))) await indexHeldRun(store, run);
    }
    const pending = await store.listRuns({ status: 'pending', includeInternal: true, limit: 10_000 });
    for (const run of pending.items) {
      if (run.approval.status === 'approved' && run.queueState === null) {
        await completeApproval(run);
        repaired += 1;
      }
    }
    return repaired;
  }

  return { listPending, decide, recover };
}

export type Approvals = ReturnType<typeof createApprovals>;
