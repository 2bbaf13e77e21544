import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import { policyOwnerFor, policyTaskPayload } from './policy-defaults.js';
import { episodeTasks, keepNewest, normalize, verifierLaneOf, withHistory } from './record.js';
import { INCIDENT_BOUNDS, type IncidentRecord, type PolicyActionName, type RemediationTask, type RemediationTaskRole } from './types.js';

/** Escalation stops climbing here; later breaches are already in front of a human. */
export const MAX_ESCALATION_LEVEL = 3;

export interface TaskStart {
  taskType: string;
  payload: Record<string, unknown>;
  /** Run id of the task: stable, so a policy firing twice (or on two instances) admits one run. */
  idempotencyKey: string;
  role: RemediationTaskRole;
  attempt: number;
  verifies: string | null;
}

export type PolicyAction =
  | { action: 'assign-owner'; owner: string; summary: string }
  | { action: Exclude<PolicyActionName, 'assign-owner' | 'escalate'>; task: TaskStart; summary: string }
  | { action: 'escalate'; level: number; task: TaskStart | null; summary: string };

/** What admission answered for a task a policy started. */
export interface TaskAdmission {
  runId: string;
  taskId: string;
  duplicate: boolean;
  held: boolean;
}

export const taskKey = (record: IncidentRecord, suffix: string) => `${SERVICE_RUN_ID_PREFIXES.incident}${record.incidentId}:e${record.episode}:${suffix}`;

function taskStart(record: IncidentRecord, taskType: string, suffix: string, role: RemediationTaskRole, attempt: number, verifies: string | null): TaskStart {
  return { taskType, payload: policyTaskPayload(taskType, record), idempotencyKey: taskKey(record, suffix), role, attempt, verifies };
}

/**
 * What the policies would do now, in order, from the incident's facts alone (pure): assign an
 * owner; for an active incident, queue the primary remediation lane, retry a blocked one within
 * maxAutoRemediationAttempts, queue the verifier once a remediation succeeded, and escalate when
 * the SLA is breached. A watching incident only gets an owner; a resolved one nothing.
 */
export function planPolicyActions(record: IncidentRecord, now: Date): PolicyAction[] {
  if (record.status === 'resolved') return [];
  const { policy } = record;
  const actions: PolicyAction[] = [];
  if (!record.owner) {
    const owner = policyOwnerFor(policy, record.suggestedOwner);
    actions.push({ action: 'assign-owner', owner, summary: `assigned ${owner} (${record.suggestedOwner ? 'routing label' : 'owner of the remediation lane'})` });
  }
  if (record.status !== 'active') return actions;

  const tasks = episodeTasks(record);
  const remediations = tasks.filter((t) => t.role === 'primary' || t.role === 'manual');
  const primary = tasks.filter((t) => t.role === 'primary');
  const last = remediations.at(-1);
  if (policy.remediationTaskType && !last) {
    actions.push({
      action: 'queue-remediation',
      task: taskStart(record, policy.remediationTaskType, 'remediation:1', 'primary', 1, null),
      summary: `queued primary remediation lane ${policy.remediationTaskType}`,
    });
  } else if (last?.role === 'primary' && last.status === 'failed' && policy.autoRetryBlockedRemediation) {
    const attempt = primary.length + 1;
    if (attempt <= policy.maxAutoRemediationAttempts) {
      actions.push({
        action: 'retry-remediation',
        task: taskStart(record, last.taskType, `remediation:${attempt}`, 'primary', attempt, null),
        summary: `retried blocked remediation ${last.taskType} (attempt ${attempt} of ${policy.maxAutoRemediationAttempts}) after run ${last.runId} failed`,
      });
    }
  } else if (last?.status === 'success' && record.verification.required) {
    const verifier = verifierLaneOf(record);
    if (!tasks.some((t) => t.role === 'verifier' && t.verifies === last.taskId)) {
      actions.push({
        action: 'queue-verifier',
        task: taskStart(record, verifier, `verify:${last.taskId}`, 'verifier', 1, last.taskId),
        summary: `queued verifier lane ${verifier} for ${last.taskType} run ${last.runId}`,
      });
    }
  }

  const { escalation } = record;
  if (policy.autoEscalateOnBreach && escalation.dueAt && now.getTime() >= Date.parse(escalation.dueAt) && escalation.level < MAX_ESCALATION_LEVEL) {
    const level = escalation.level + 1;
    actions.push({
      action: 'escalate',
      level,
      task: policy.escalationTaskType ? taskStart(record, policy.escalationTaskType, `escalation:${level}`, 'escalation', level, null) : null,
      summary: `escalated to level ${level}: open past its ${policy.targetSlaMinutes}-minute SLA (due ${escalation.dueAt})`,
    });
  }
  return actions;
}

function withTask(record: IncidentRecord, start: TaskStart, admission: TaskAdmission, at: string): IncidentRecord {
  if (record.remediationTasks.some((t) => t.runId === admission.runId)) return record;
  const task: RemediationTask = {
    taskId: admission.taskId,
    runId: admission.runId,
    taskType: start.taskType,
    role: start.role,
    episode: record.episode,
    verifies: start.verifies,
    attempt: start.attempt,
    status: admission.held ? 'awaiting-approval' : 'queued',
    requestedBy: 'incident-policy',
    requestedAt: at,
    updatedAt: at,
    replayRunId: null,
    note: null,
  };
  return {
    ...record,
    remediationTasks: keepNewest([...record.remediationTasks, task], INCIDENT_BOUNDS.remediationTasks),
    linkedRunIds: record.linkedRunIds.includes(task.runId) ? record.linkedRunIds : keepNewest([...record.linkedRunIds, task.runId], INCIDENT_BOUNDS.linkedIds),
  };
}

/**
 * Records one policy act on the incident: the change itself (owner, task, escalation), a
 * `policyExecutions[]` entry and a history entry. `admission` is what admission answered for
 * the act's task, if it has one.
 */
export function applyPolicyAction(record: IncidentRecord, action: PolicyAction, admission: TaskAdmission | null, now: Date): IncidentRecord {
  const at = now.toISOString();
  let next: IncidentRecord = { ...record, updatedAt: at };
  const task = action.action === 'assign-owner' ? null : action.task;
  if (action.action === 'assign-owner') {
    next = {
      ...next,
      owner: action.owner,
      ownershipHistory: keepNewest(
        [...next.ownershipHistory, { at, owner: action.owner, previousOwner: record.owner, actor: 'incident-policy', source: 'policy' as const, note: null }],
        INCIDENT_BOUNDS.ownershipHistory,
      ),
    };
    next = withHistory(next, { at, kind: 'owner-changed', actor: 'incident-policy', summary: `owner set to ${action.owner}`, data: { owner: action.owner, previousOwner: record.owner } });
  }
  if (task && admission) next = withTask(next, task, admission, at);
  if (action.action === 'escalate') {
    const dueAt = action.level < MAX_ESCALATION_LEVEL ? new Date(now.getTime() + record.policy.targetSlaMinutes * 60_000).toISOString() : null;
    next = { ...next, escalation: { level: action.level, summary: action.summary, dueAt, escalatedAt: at } };
    next = withHistory(next, { at, kind: 'escalated', actor: 'incident-policy', summary: action.summary, data: { level: action.level } });
  }
  next.policyExecutions = keepNewest(
    [
      ...next.policyExecutions,
      {
        executionId: `${record.incidentId}:e${record.episode}:${action.action}:${task?.idempotencyKey ?? at}`,
        policyId: record.policy.policyId,
        action: action.action,
        at,
        summary: action.summary,
        taskType: task?.taskType ?? null,
        runId: admission?.runId ?? null,
        taskId: admission?.taskId ?? null,
        idempotencyKey: task?.idempotencyKey ?? null,
        outcome: admission ? (admission.duplicate ? 'duplicate' : 'admitted') : 'applied',
      },
    ],
    INCIDENT_BOUNDS.policyExecutions,
  );
  next = withHistory(next, { at, kind: 'policy', actor: 'incident-policy', summary: action.summary, data: { action: action.action, runId: admission?.runId ?? null } });
  return normalize(next);
}
