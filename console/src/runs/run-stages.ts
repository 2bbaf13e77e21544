import type { QueueAttempt, RunView } from '../api/types.js';
import { formatDuration } from '../lib/time.js';
import { isAwaitingApproval } from './held.js';
import type { GraphModel, GraphNodeModel } from './workflow-graph-model.js';

type StagesInput = Pick<RunView, 'runId' | 'status' | 'approval' | 'workflow' | 'queueAttempts' | 'approvedFromTaskId' | 'retry' | 'finishedAt' | 'updatedAt'>;

/** Queue states that mean the attempt executed (it was claimed by a worker or handler). */
const EXECUTED = new Set<string>(['running', 'success', 'failed']);
const TERMINAL = new Set<string>(['success', 'failed', 'cancelled']);

/** One executed attempt: its number, how it ended (or `running`) and how long it ran. */
interface ExecutedAttempt {
  attempt: number;
  status: string;
  ms: number | null;
}

/** The attempts that executed, in order, from the run's queue attempts. */
export function executedAttempts(run: StagesInput): ExecutedAttempt[] {
  const byAttempt = new Map<number, QueueAttempt[]>();
  for (const entry of [...run.queueAttempts].sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
    byAttempt.set(entry.attempt, [...(byAttempt.get(entry.attempt) ?? []), entry]);
  }
  const out: ExecutedAttempt[] = [];
  const numbers = [...byAttempt.keys()].sort((a, b) => a - b);
  for (const attempt of numbers) {
    const entries = byAttempt.get(attempt)!;
    const started = entries.find((e) => e.state === 'running');
    if (!started) continue;
    const last = entries[entries.length - 1]!;
    const isLatest = attempt === numbers[numbers.length - 1];
    const ended = last.state !== 'running' ? Date.parse(last.at) : isLatest && TERMINAL.has(run.status) ? Date.parse(run.finishedAt ?? run.updatedAt) : null;
    const status = isLatest && TERMINAL.has(run.status) ? run.status : EXECUTED.has(last.state) ? last.state : 'running';
    out.push({ attempt, status, ms: ended === null ? null : ended - Date.parse(started.at) });
  }
  return out;
}

/**
 * A run's own stages as a graph: the held run it replays, admission, the approval and its
 * decision, the replay that carries approved work, each attempt that executed (a failed one
 * followed by its retry), a scheduled retry and the result. A plain run (no approval, no
 * replay, one attempt, no retry) returns null: admitted → execution → result says nothing the
 * timeline and the header do not.
 */
export function runStagesModel(run: StagesInput): GraphModel | null {
  const attempts = executedAttempts(run);
  const retryScheduled = run.status === 'retrying' && run.retry !== null;
  if (!run.approval.required && !run.approvedFromTaskId && attempts.length <= 1 && !retryScheduled) return null;

  const nodes: GraphNodeModel[] = [];
  const edges: GraphModel['edges'] = [];
  const chain = (node: GraphNodeModel, label: string | null = null) => {
    const previous = nodes[nodes.length - 1];
    nodes.push(node);
    if (previous) edges.push({ from: previous.id, to: node.id, label });
  };

  if (run.approvedFromTaskId) {
    chain({ id: 'held', label: 'held run, approved', sublabel: `task ${run.approvedFromTaskId.slice(0, 8)}`, status: 'approved', runId: null });
  }
  chain({ id: 'admitted', label: 'admitted', sublabel: null, status: 'done', runId: null }, run.approvedFromTaskId ? 'replayed as' : null);
  if (run.approval.required) {
    const a = run.approval;
    const held = isAwaitingApproval(run);
    const decided = a.decidedBy ? `${a.status} by ${a.decidedBy}` : null;
    chain({ id: 'approval', label: 'approval', sublabel: held ? (a.reason ?? 'waiting for a decision') : (decided ?? a.note ?? null), status: held ? 'awaiting-approval' : a.status, runId: null });
  }
  if (run.approval.replayRunId) {
    chain({ id: 'replay', label: 'replay', sublabel: 'runs the approved work', status: run.status, runId: run.approval.replayRunId }, 'approved');
  }
  attempts.forEach((a, i) => {
    const label = attempts.length > 1 ? `attempt ${a.attempt}` : 'execution';
    chain({ id: `attempt-${a.attempt}`, label, sublabel: a.ms === null ? 'running' : `ran ${formatDuration(a.ms)}`, status: a.status, runId: null }, i > 0 ? 'retried' : null);
  });
  if (retryScheduled) {
    chain({ id: 'retry', label: `retry (attempt ${(attempts[attempts.length - 1]?.attempt ?? 0) + 1})`, sublabel: `at ${new Date(run.retry!.nextRetryAt).toLocaleTimeString()}`, status: 'retrying', runId: null }, 'failed');
  }
  if (TERMINAL.has(run.status) && !run.approval.replayRunId) {
    chain({ id: 'result', label: 'result', sublabel: null, status: run.status, runId: null });
  }
  return { nodes, edges, steps: false };
}
