import type { Logger } from 'pino';
import { DECISIONS } from './approval-answer.js';
import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict, DomainError, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type Admit } from './admission.js';
import { createApprovalExpiry, type ApprovalEscalation } from './approval-expiry.js';
import { approvalImpact, payloadPreview } from './approval-impact.js';
import { APPROVAL_INDEX, indexHeldRun } from './approval-index.js';
import { approvalExpired, approvalRequesterOf, approvalRequestersOf, builtInApprovalPolicy, decisionRefusal, type ApprovalPolicy } from './approval-policy.js';
import { decisionHistoryOf, wasEscalated, withOperatorDecision } from './approval-transitions.js';
import { getCatalogEntry } from './catalog.js';
import type { LaneRegistry } from './lanes.js';
import { withAttemptState, withEvent } from './run-transitions.js';
import type { RunRecord } from '../domain/run-record.js';

/** The run id of an approval's replay; only this module mints ids in its namespace. */
export const replayRunIdFor = (taskId: string) => `${SERVICE_RUN_ID_PREFIXES.approvalReplay}${taskId}`;

export { DECISIONS };
export type Decision = (typeof DECISIONS)[number];

/**
 * The API shape of one run's approval: the stored fields with the ones older records lack filled
 * in, and the run it belongs to. Every approval answer (pending list, one approval, a decision)
 * is built from it.
 */
export function approvalView(run: RunRecord) {
  const a = run.approval;
  return {
    taskId: run.taskId,
    runId: run.runId,
    type: run.type,
    required: a.required,
    status: a.status,
    reason: a.reason,
    requestedBy: a.required ? approvalRequesterOf(run) : (a.requestedBy ?? null),
    requesters: a.required ? approvalRequestersOf(run) : [],
    requestedAt: a.requestedAt,
    expiresAt: a.expiresAt ?? null,
    decidedAt: a.decidedAt,
    decidedBy: a.decidedBy,
    note: a.note,
    replayRunId: a.replayRunId,
    replayTaskId: a.replayTaskId,
    decisionHistory: decisionHistoryOf(a),
  };
}
export type ApprovalView = ReturnType<typeof approvalView>;

export interface DecisionResult {
  status: 'ok';
  approval: ApprovalView & { replayTaskId?: string | null };
  replayTaskId?: string;
  replayRunId?: string;
}

export interface ApprovalsDeps {
  store: StateStore;
  clock: Clock;
  invalidator: CacheInvalidator;
  admit: Admit;
  lanes: LaneRegistry;
  /** Who may decide and when approvals expire (config approvalPolicy); absent: the built-in policy. */
  policy?: ApprovalPolicy;
  /** Opens and resolves the incident of an approval that expired under `onExpiry: "escalate"`. */
  escalation?: ApprovalEscalation;
  logger?: Logger;
  /** Told of a held run a decision settled (rejected, or closed after its replay was admitted). */
  onDecided?: (run: RunRecord) => Promise<void>;
  /** Replaces the service's own secrets in the note the run and its events keep (src/redaction/). */
  redact?: Pick<SecretRedactor, 'value'>;
}

export function createApprovals(deps: ApprovalsDeps) {
  const { store, clock } = deps;
  const policy = deps.policy ?? builtInApprovalPolicy;
  const expiry = createApprovalExpiry({
    store,
    clock,
    invalidator: deps.invalidator,
    policy,
    escalation: deps.escalation,
    logger: deps.logger,
    onDecided: deps.onDecided,
  });

  /** What an approver reads of a held run: its approval, the impact of approving it and the policy that applies. */
  function describe(run: RunRecord) {
    const entry = getCatalogEntry(run.type);
    const { approverRole, allowSelfApproval, onExpiry } = policy.forType(run.type);
    return {
      ...approvalView(run),
      impact: entry ? approvalImpact(run, entry, deps.lanes) : null,
      payloadPreview: payloadPreview(run.payload),
      policy: { approverRole, allowSelfApproval, onExpiry },
    };
  }

  async function listPending() {
    const { items, total } = await store.listRuns({ queueState: 'held', includeInternal: true, limit: 200, order: 'oldest' });
    return { count: total, pending: items.map(describe) };
  }

  async function heldRunOf(taskId: string): Promise<RunRecord> {
    const index = await store.getDoc(APPROVAL_INDEX, taskId);
    const run = index && typeof index.runId === 'string' ? await store.getRun(index.runId) : null;
    if (!run || run.taskId !== taskId) throw notFound(`approval ${taskId}`);
    return run;
  }

  /** One approval by its id (the held task's id, as the decision route takes it), with the payload without its `__` keys. */
  async function get(taskId: string) {
    const run = await heldRunOf(taskId);
    const payload = Object.fromEntries(Object.entries(run.payload).filter(([key]) => !key.startsWith('__')));
    return { ...describe(run), payload };
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
      // The approved work stays its requesters' (the decider approved it, they did not ask for it):
      // a rerun of the replay, or a step its workflow admits, counts them again.
      requesters: approvalRequestersOf(held),
      forceRunId: replayRunId,
      approvedFromTaskId: held.taskId,
      // An approved workflow step's work is the replay: it reports back to the same workflow.
      workflowParent: held.workflowParent ?? undefined,
      // The replay continues the held run's trace.
      traceparent: held.traceparent,
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
    const held = await heldRunOf(taskId);
    const refusal = decisionRefusal(policy.forType(held.type), held, identity);
    if (refusal) throw new DomainError('forbidden', refusal);
    // An approval past its expiry whose fallback is rejection is settled now rather than at the
    // next sweep, so no decision lands on an approval the policy says is over.
    if (approvalExpired(held, clock.now()) && policy.forType(held.type).onExpiry === 'reject') {
      await expiry.expire(held.runId);
      throw conflict(`approval ${taskId} expired at ${held.approval.expiresAt} and was rejected by the service`);
    }
    const now = clock.now();
    const replayRunId = decision === 'approved' ? replayRunIdFor(taskId) : null;
    const keptNote = deps.redact ? deps.redact.value(note) : note;
    // The decision itself is one compare-and-set on the held run: of two concurrent decisions
    // exactly one finds it pending; the other gets 409.
    const written = await store.mutateRun(held.runId, (current) =>
      current && current.taskId === taskId ? withOperatorDecision(current, now, decision, identity.actor, keptNote, replayRunId) : null,
    );
    if (!written.changed || !written.after) {
      if (!written.before) throw notFound(`approval ${taskId}`);
      throw conflict(`approval ${taskId} is no longer pending (status ${written.before.approval.status})`);
    }
    await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
    if (wasEscalated(written.after)) await expiry.settleEscalation(written.after);
    if (decision === 'rejected') {
      await deps.onDecided?.(written.after);
      return { status: 'ok', approval: approvalView(written.after) };
    }
    const replay = await completeApproval(written.after);
    return { status: 'ok', approval: { ...approvalView(written.after), replayTaskId: replay.replayTaskId }, ...replay };
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

  return { listPending, get, decide, recover, expiry };
}

export type Approvals = ReturnType<typeof createApprovals>;
