import { isTerminalStatus, placementOf, type RunRecord } from '../domain/run-record.js';
import { tagsOf } from '../domain/run-tags.js';
import { endedByApprovalRefusal } from '../domain/approval-refusal.js';
import { approvalRequestersOf } from './approval-policy.js';
import { requestersOf } from './run-requesters.js';

/** Result keys promoted into resultSummary highlights when an agent emits them. */
const PROMOTED_FIELDS = ['queueBudgetFusion', 'routingDecision', 'acceptanceCoverage', 'comparisonReadiness', 'posture', 'topic', 'summary'];
const HIGHLIGHT_MAX_CHARS = 280;

type Stage = 'admitted' | 'waiting' | 'awaiting-approval' | 'queued' | 'running' | 'retry-scheduled' | 'completed' | 'failed' | 'cancelled' | 'skipped';

function currentStage(run: RunRecord): Stage {
  if (run.status === 'success') return 'completed';
  if (run.status === 'failed') return 'failed';
  if (run.status === 'cancelled') return 'cancelled';
  if (run.status === 'skipped') return 'skipped';
  // A flow step whose dependencies have not ended: no claim takes it yet.
  if (run.status === 'waiting') return 'waiting';
  if (run.status === 'retrying') return 'retry-scheduled';
  if (run.status === 'running') return 'running';
  if (run.queueState === 'held') return 'awaiting-approval';
  return 'queued';
}

function stageDurations(run: RunRecord): Record<string, number> {
  const durations: Record<string, number> = {};
  const attempts = run.queueAttempts;
  for (let i = 0; i < attempts.length - 1; i += 1) {
    const from = attempts[i]!;
    const to = attempts[i + 1]!;
    const ms = new Date(to.at).getTime() - new Date(from.at).getTime();
    durations[from.state] = (durations[from.state] ?? 0) + Math.max(0, ms);
  }
  return durations;
}

function stopInfo(run: RunRecord): { stopReason: string | null; stopClassification: string | null } {
  if (run.status === 'failed') {
    const cls = endedByApprovalRefusal(run) ? 'approval-rejected' : run.failureReason === 'interrupted' ? 'interrupted' : 'execution-failed';
    return { stopReason: run.error, stopClassification: cls };
  }
  if (run.status === 'success') return { stopReason: null, stopClassification: 'completed' };
  if (run.status === 'cancelled') {
    const by = run.cancellation ? `cancelled by ${run.cancellation.requestedBy}` : 'cancelled';
    return { stopReason: run.cancellation?.reason ? `${by}: ${run.cancellation.reason}` : by, stopClassification: 'cancelled' };
  }
  if (run.status === 'skipped') return { stopReason: run.flowStep?.skipped?.reason ?? run.error, stopClassification: 'skipped' };
  if (run.queueState === 'held') return { stopReason: run.approval.reason, stopClassification: 'awaiting-approval' };
  return { stopReason: null, stopClassification: null };
}

function graphOf(run: RunRecord) {
  const nodes = [{ id: 'admitted', label: 'admitted', status: 'done' }];
  if (run.approval.required) {
    nodes.push({ id: 'approval', label: 'approval', status: run.approval.status === 'pending' ? 'active' : run.approval.status });
  }
  const reachedRun = run.startedAt !== null;
  nodes.push({ id: 'execution', label: 'execution', status: run.status === 'running' ? 'active' : reachedRun ? 'done' : 'waiting' });
  if (run.retry) nodes.push({ id: 'retry', label: 'retry', status: 'scheduled' });
  const terminal = isTerminalStatus(run.status);
  nodes.push({ id: 'result', label: 'result', status: terminal ? run.status : 'waiting' });
  const edges = nodes.slice(1).map((node, i) => ({ from: nodes[i]!.id, to: node.id }));
  return { nodes, edges };
}

function proofLinksOf(run: RunRecord) {
  const links: Array<{ id: string; type: string; status: string; target: string; summary: string; lastAttemptAt: string }> = [];
  const lastAt = run.updatedAt;
  if (run.approval.replayRunId) {
    links.push({
      id: `approval:${run.taskId}`,
      type: 'approval-replay',
      status: run.approval.status,
      target: run.approval.replayRunId,
      summary: `approved by ${run.approval.decidedBy ?? 'operator'}; work replayed as ${run.approval.replayRunId}`,
      lastAttemptAt: run.approval.decidedAt ?? lastAt,
    });
  }
  if (run.approvedFromTaskId) {
    links.push({
      id: `approved-from:${run.approvedFromTaskId}`,
      type: 'approval-source',
      status: 'approved',
      target: run.approvedFromTaskId,
      summary: `replay of held task ${run.approvedFromTaskId}`,
      lastAttemptAt: run.createdAt,
    });
  }
  const inner = resultObject(run.result);
  for (const key of ['deployPath', 'knowledgePackPath', 'draftsLogPath']) {
    const value = inner[key];
    if (typeof value === 'string') {
      links.push({ id: `${key}:${run.runId}`, type: 'artifact', status: run.status, target: value, summary: key, lastAttemptAt: lastAt });
    }
  }
  return links;
}

/** In-process handlers wrap their fields in a TaskResult `{status, result}`; workers return them directly. */
function resultObject(result: unknown): Record<string, unknown> {
  if (typeof result !== 'object' || result === null) return {};
  const r = result as Record<string, unknown>;
  if (typeof r.result === 'object' && r.result !== null && typeof r.status === 'string') return r.result as Record<string, unknown>;
  return r;
}

function sanitizeHighlight(value: unknown): unknown {
  if (typeof value === 'string') return value.length > HIGHLIGHT_MAX_CHARS ? `${value.slice(0, HIGHLIGHT_MAX_CHARS)}…` : value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return value;
  const json = JSON.stringify(value);
  return json.length > HIGHLIGHT_MAX_CHARS ? `${json.slice(0, HIGHLIGHT_MAX_CHARS)}…` : value;
}

function resultSummaryOf(run: RunRecord) {
  const inner = resultObject(run.result);
  const highlights: Record<string, unknown> = {};
  for (const field of PROMOTED_FIELDS) if (field in inner) highlights[field] = sanitizeHighlight(inner[field]);
  return { keys: Object.keys(inner), highlights };
}

/** Payload as shown to readers: the service's own `__` keys are never exposed. */
function visiblePayload(payload: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(payload).filter(([k]) => !k.startsWith('__')));
}

/**
 * Links between runs of an integration workflow: on the workflow, one causal link per child run
 * (step or reroute) and a dependency summary; on a child, the cross-run link back to its
 * workflow. Absent on runs that are neither.
 */
function workflowLinksOf(run: RunRecord) {
  const children = run.workflowChildren ?? [];
  const parent = run.workflowParent ?? null;
  if (children.length === 0 && !parent) return {};
  const count = (...states: string[]) => children.filter((c) => states.includes(c.state)).length;
  const steps = children.filter((c) => c.role === 'step');
  return {
    causalLinks: children.map((c) => ({
      from: run.runId,
      to: c.runId,
      relation: c.role === 'step' ? 'runs-step' : 'reroutes-failed-step',
      stepIndex: c.stepIndex,
      type: c.type,
      state: c.state,
      detail: c.detail,
    })),
    crossRunLinks: parent
      ? [{ from: run.runId, to: parent.runId, relation: parent.role === 'step' ? 'step-of' : 'reroute-of', stepIndex: parent.stepIndex }]
      : [],
    relatedRuns: [...(parent ? [parent.runId] : []), ...children.map((c) => c.runId)],
    dependencySummary:
      children.length === 0
        ? null
        : {
            steps: steps.length,
            succeeded: steps.filter((c) => c.state === 'success').length,
            failed: count('failed', 'refused'),
            cancelled: count('cancelled'),
            inProgress: count('queued', 'running', 'retrying', 'awaiting-approval'),
            waiting: count('waiting'),
            skipped: count('skipped'),
            rerouted: children.some((c) => c.role === 'reroute'),
          },
  };
}

/** The API shape of a run: the stored record plus the views derived from it. */
export function toRunView(run: RunRecord) {
  const stage = currentStage(run);
  const { stopReason, stopClassification } = stopInfo(run);
  const graph = graphOf(run);
  const durations = stageDurations(run);
  const proofLinks = proofLinksOf(run);
  const createdMs = new Date(run.createdAt).getTime();
  const timingBreakdown = {
    queuedMs: run.startedAt ? new Date(run.startedAt).getTime() - createdMs : null,
    executionMs: run.startedAt && run.finishedAt ? new Date(run.finishedAt).getTime() - new Date(run.startedAt).getTime() : null,
    totalMs: run.finishedAt ? new Date(run.finishedAt).getTime() - createdMs : null,
  };
  const accounting = run.accounting;
  return {
    runId: run.runId,
    taskId: run.taskId,
    type: run.type,
    internal: run.internal,
    status: run.status,
    /** `held` while an approval decides it (its status stays `pending`), else `ready`. */
    queueState: run.queueState,
    /** Its concurrency key (null: the unkeyed queue) and priority, as claims order it (docs/queue.md). */
    ...placementOf(run),
    /** No claim takes it before this instant (a trailing debounce's window end); null: none. */
    notBefore: run.notBefore ?? null,
    tags: tagsOf(run),
    attempt: run.attempt,
    source: run.source,
    requestedBy: run.requestedBy,
    requesters: requestersOf(run),
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    payload: visiblePayload(run.payload),
    queueAttempts: run.queueAttempts,
    events: run.events,
    approval: {
      required: run.approval.required,
      status: run.approval.status,
      requestedAt: run.approval.requestedAt,
      decidedAt: run.approval.decidedAt,
      decidedBy: run.approval.decidedBy,
      reason: run.approval.reason,
      note: run.approval.note,
      replayRunId: run.approval.replayRunId,
      replayTaskId: run.approval.replayTaskId,
      requestedBy: run.approval.requestedBy ?? (run.approval.required ? run.requestedBy : null),
      requesters: run.approval.required ? approvalRequestersOf(run) : [],
      expiresAt: run.approval.expiresAt ?? null,
      decisionHistory: run.approval.decisionHistory ?? [],
    },
    approvedFromTaskId: run.approvedFromTaskId,
    rerunOf: run.rerunOf ?? null,
    reruns: run.reruns ?? [],
    retry: run.retry,
    /** Set once an operator asked to cancel the run; `completedAt` null while it is cancelling. */
    cancellation: run.cancellation ?? null,
    workflow: {
      stage,
      graphStatus: stage === 'completed' || stage === 'failed' || stage === 'cancelled' || stage === 'skipped' ? stage : 'in-progress',
      currentStage: stage,
      blockedStage: stage === 'awaiting-approval' ? 'approval' : null,
      stopReason,
      stopClassification,
      awaitingApproval: stage === 'awaiting-approval',
      retryScheduled: run.status === 'retrying',
      nextRetryAt: run.retry?.nextRetryAt ?? null,
      repairStatus: run.repair?.status ?? null,
      eventCount: run.events.length,
      stageDurations: durations,
      timingBreakdown,
      nodeCount: graph.nodes.length,
      edgeCount: graph.edges.length,
    },
    workflowGraph: {
      nodes: graph.nodes,
      edges: graph.edges,
      events: run.events.map((e) => ({ seq: e.seq, at: e.at, kind: e.kind, name: e.name })),
      proofLinks,
      stopClassification,
      timingBreakdown,
      ...workflowLinksOf(run),
    },
    proofLinks,
    resultSummary: resultSummaryOf(run),
    result: run.result,
    error: run.error,
    failureReason: run.failureReason,
    model: accounting?.model ?? null,
    cost: accounting ? { usd: accounting.costUsd, metered: accounting.metered, note: accounting.note } : null,
    latency: accounting ? { ms: accounting.latencyMs } : null,
    usage: accounting?.usage ?? null,
    budget: accounting?.budget ?? null,
    accounting,
    /** Each model call the service made for the run (src/models/gateway.ts); empty when none. */
    modelCalls: run.modelCalls ?? [],
    operatorSummary: run.operatorSummary,
    recommendedNextActions: run.recommendedNextActions,
    specialistContract: run.specialistContract,
    toolGate: run.toolGate ?? null,
    ...(run.repair ? { repair: run.repair } : {}),
    ...(run.scheduleId ? { scheduleId: run.scheduleId } : {}),
    /** A flow step (or its approval replay): its flow and key, and why the flow skipped it when it did. */
    ...(run.flowStep ? { flowStep: run.flowStep } : {}),
  };
}

export type RunView = ReturnType<typeof toRunView>;
