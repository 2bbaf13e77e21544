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
import { approvedPayload, checkApprovalInput } from './approval-input.js';
import { approversOf, decisionBy, decisionHistoryOf, wasEscalated, withOperatorDecision } from './approval-transitions.js';
import { getCatalogEntry, getTaskType } from './catalog.js';
import type { LaneRegistry } from './lanes.js';
import { withAttemptState, withEvent } from './run-transitions.js';
import { placementOf, type RunRecord } from '../domain/run-record.js';
import { tagsOf } from '../domain/run-tags.js';

/** The run id of an approval's replay; only this module mints ids in its namespace. */
export const replayRunIdFor = (taskId: string) => `${SERVICE_RUN_ID_PREFIXES.approvalReplay}${taskId}`;

export { DECISIONS };
export type Decision = (typeof DECISIONS)[number];

/**
 * The API shape of one run's approval: the stored fields with the ones older records lack filled
 * in, the run it belongs to and its progress toward the quorum (`requiredApprovals` of the
 * type's policy). Every approval answer (pending list, one approval, a decision) is built from it.
 */
export function approvalView(run: RunRecord, requiredApprovals: number) {
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
    approvals: { received: approversOf(a).length, required: requiredApprovals },
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

  const viewOf = (run: RunRecord) => approvalView(run, policy.forType(run.type).requiredApprovals);

  /** What an approver reads of a held run: its approval, the impact of approving it and the policy that applies. */
  function describe(run: RunRecord) {
    const entry = getCatalogEntry(run.type);
    const { approverRole, allowSelfApproval, onExpiry, requiredApprovals, approverGroups } = policy.forType(run.type);
    return {
      ...viewOf(run),
      impact: entry ? approvalImpact(run, entry, deps.lanes) : null,
      payloadPreview: payloadPreview(run.payload),
      policy: { approverRole, allowSelfApproval, onExpiry, requiredApprovals, approverGroups: [...approverGroups] },
      approvalInputSchema: getTaskType(run.type)?.approvalInputSchema ?? null,
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
      // Every approver's checked input merged over the held payload.
      payload: approvedPayload(held),
      source: 'approval-replay',
      requestedBy: held.approval.decidedBy ?? 'approval',
      // The approved work stays its requesters' (the decider approved it, they did not ask for it):
      // a rerun of the replay, or a step its workflow admits, counts them again.
      requesters: approvalRequestersOf(held),
      forceRunId: replayRunId,
      approvedFromTaskId: held.taskId,
      // An approved workflow step's work is the replay: it reports back to the same workflow.
      workflowParent: held.workflowParent ?? undefined,
      // A flow's dependents follow the replay (the run that does the work), so it names the step too.
      flowStep: held.flowStep ? { flowId: held.flowStep.flowId, key: held.flowStep.key } : undefined,
      // The replay continues the held run's trace.
      traceparent: held.traceparent,
      // The approved work queues where the held run would have.
      placement: placementOf(held),
      // The approved work keeps the held run's tags.
      tags: tagsOf(held),
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

  /**
   * One operator's decision. Short of the type's `requiredApprovals`, an approval is recorded and
   * the run stays held (the answer has no replay fields); the approval that reaches the quorum
   * admits the replay, and a rejection by any eligible approver ends it.
   */
  async function decide(
    taskId: string,
    decision: Decision,
    note: string | null,
    identity: Identity,
    input: Record<string, unknown> | null = null,
  ): Promise<DecisionResult> {
    const held = await heldRunOf(taskId);
    const typePolicy = policy.forType(held.type);
    const refusal = decisionRefusal(typePolicy, held, identity);
    if (refusal) throw new DomainError('forbidden', refusal);
    if (input !== null) checkApprovalInput(getTaskType(held.type), held, decision, input);
    // An approval past its expiry whose fallback is rejection is settled now rather than at the
    // next sweep, so no decision lands on an approval the policy says is over.
    if (approvalExpired(held, clock.now()) && policy.forType(held.type).onExpiry === 'reject') {
      await expiry.expire(held.runId);
      throw conflict(`approval ${taskId} expired at ${held.approval.expiresAt} and was rejected by the service`);
    }
    const now = clock.now();
    // The note and input are kept on the run, which viewers read: the service's own secrets in
    // them are replaced, as admission does to a payload.
    const keptNote = deps.redact ? deps.redact.value(note) : note;
    const keptInput = deps.redact && input ? deps.redact.value(input) : input;
    const operatorDecision = {
      decision,
      actor: identity.actor,
      note: keptNote,
      input: keptInput,
      requiredApprovals: typePolicy.requiredApprovals,
      replayRunId: replayRunIdFor(taskId),
    };
    // The decision itself is one compare-and-set on the held run, which counts the approvals it
    // already holds: of two concurrent decisions each sees the other's or loses with 409, so the
    // quorum is reached (and the replay admitted) by exactly one of them.
    const written = await store.mutateRun(held.runId, (current) =>
      current && current.taskId === taskId ? withOperatorDecision(current, now, operatorDecision) : null,
    );
    if (!written.changed || !written.after) {
      if (!written.before) throw notFound(`approval ${taskId}`);
      const earlier = decisionBy(written.before.approval, identity.actor);
      if (earlier) throw conflict(`${identity.actor} already decided approval ${taskId} (${earlier.decision} at ${earlier.at}); each approver decides once`);
      throw conflict(`approval ${taskId} is no longer pending (status ${written.before.approval.status})`);
    }
    await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
    const status = written.after.approval.status;
    if (status === 'pending') return { status: 'ok', approval: viewOf(written.after) };
    if (wasEscalated(written.after)) await expiry.settleEscalation(written.after);
    if (status === 'rejected') {
      await deps.onDecided?.(written.after);
      return { status: 'ok', approval: viewOf(written.after) };
    }
    const replay = await completeApproval(written.after);
    return { status: 'ok', approval: { ...viewOf(written.after), replayTaskId: replay.replayTaskId }, ...replay };
  }

  /**
   * Why `identity` may not be sent a link to decide `taskId` (the decision's own rules, and one
   * decision per approver), or null when it may. Unknown: 404; no longer pending: 409.
   */
  async function linkRefusal(taskId: string, identity: Identity): Promise<string | null> {
    const held = await heldRunOf(taskId);
    if (held.approval.status !== 'pending') throw conflict(`approval ${taskId} is no longer pending (status ${held.approval.status})`);
    const refusal = decisionRefusal(policy.forType(held.type), held, identity);
    if (refusal) return refusal;
    const earlier = decisionBy(held.approval, identity.actor);
    return earlier ? `${identity.actor} already decided approval ${taskId} (${earlier.decision} at ${earlier.at})` : null;
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

  return { listPending, get, decide, linkRefusal, recover, expiry };
}

export type Approvals = ReturnType<typeof createApprovals>;
