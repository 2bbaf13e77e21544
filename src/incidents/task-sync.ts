import type { RunRecord } from '../domain/run-record.js';
import { endedByApprovalRefusal } from '../domain/approval-refusal.js';
import { normalize, withHistory } from './record.js';
import type { IncidentRecord, RemediationTask, RemediationTaskStatus } from './types.js';

const SETTLED = new Set<RemediationTaskStatus>(['success', 'failed', 'rejected', 'cancelled']);

export const isSettledTask = (task: RemediationTask) => SETTLED.has(task.status);

/** A run's state in the remediation task vocabulary. A held run closed by its approval follows its replay. */
export function taskStatusOf(run: RunRecord): RemediationTaskStatus {
  if (run.status === 'failed') return endedByApprovalRefusal(run) ? 'rejected' : 'failed';
  if (run.status === 'pending' || run.status === 'waiting') return run.queueState === 'held' ? 'awaiting-approval' : 'queued';
  // Only flow steps are skipped; an incident's task never is one, but a skip is an end without running.
  if (run.status === 'skipped') return 'cancelled';
  if (run.status === 'success' && run.approval.status === 'approved' && run.approval.replayRunId) return 'queued';
  return run.status;
}

/** Whether `run` carries the work of `task` (the task's own run, or the approval replay of it). */
export const runServesTask = (task: RemediationTask, run: RunRecord) =>
  task.runId === run.runId || task.replayRunId === run.runId || (run.approvedFromTaskId !== null && run.approvedFromTaskId === task.taskId);

/**
 * Folds what a run now says into the incident's remediation task it serves: status changes are
 * recorded in history. Null when nothing changed. A verifier's success resolves nothing here:
 * its verdict (src/incidents/verification.ts) checks the incident's own condition first.
 */
export function withRunOutcome(record: IncidentRecord, run: RunRecord, now: Date): IncidentRecord | null {
  const index = record.remediationTasks.findIndex((t) => runServesTask(t, run));
  if (index < 0) return null;
  const task = record.remediationTasks[index]!;
  const status = taskStatusOf(run);
  const replayRunId = run.approval.replayRunId ?? (run.runId !== task.runId ? run.runId : task.replayRunId);
  if (task.status === status && task.replayRunId === replayRunId) return null;
  const at = now.toISOString();
  const tasks = [...record.remediationTasks];
  tasks[index] = { ...task, status, replayRunId, updatedAt: at };
  const next = withHistory(
    { ...record, remediationTasks: tasks, updatedAt: at },
    {
      at,
      kind: task.role === 'verifier' ? 'verification-updated' : 'remediation-updated',
      actor: `run:${run.runId}`,
      summary: `${task.role} ${task.taskType} run ${run.runId}: ${task.status} -> ${status}`,
      data: { taskId: task.taskId, role: task.role, status },
    },
  );
  return normalize(next);
}
