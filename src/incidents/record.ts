import { incidentIdFor } from './fingerprint.js';
import { defaultPolicyFor, ownerLabelFor } from './policy-defaults.js';
import {
  INCIDENT_BOUNDS,
  type HistoryEntry,
  type IncidentRecord,
  type IncidentSignal,
  type RemediationTask,
} from './types.js';
import { buildRefactorType } from '../lanes/build-refactor/definition.js';
import { typeWithRole } from '../lanes/built-in.js';

/** A signal seen again within this window, changing nothing else, is not written again. */
export const LAST_SEEN_REFRESH_MS = 60_000;

const SEVERITY_RANK = { critical: 3, warning: 2, info: 1 } as const;
export const severityRank = (s: IncidentRecord['severity']) => SEVERITY_RANK[s];

export function keepNewest<T>(items: T[], max: number): T[] {
  return items.length > max ? items.slice(items.length - max) : items;
}

function mergeIds(current: string[], added: string[] | undefined): string[] {
  if (!added || added.length === 0) return current;
  const merged = [...current];
  for (const id of added) if (!merged.includes(id)) merged.push(id);
  return keepNewest(merged, INCIDENT_BOUNDS.linkedIds);
}

export function withHistory(record: IncidentRecord, entry: HistoryEntry): IncidentRecord {
  return { ...record, history: keepNewest([...record.history, entry], INCIDENT_BOUNDS.history) };
}

const addMinutes = (at: Date, minutes: number) => new Date(at.getTime() + minutes * 60_000).toISOString();

/** Tasks of the incident's current episode (a reopened incident starts its policies afresh). */
export const episodeTasks = (record: IncidentRecord): RemediationTask[] =>
  record.remediationTasks.filter((t) => t.episode === record.episode);

function newIncident(signal: IncidentSignal, now: Date): IncidentRecord {
  const at = now.toISOString();
  const policy = defaultPolicyFor(signal.classification, signal.severity, signal.scope ?? null, signal.source);
  const record: IncidentRecord = {
    incidentId: incidentIdFor(signal.fingerprint),
    fingerprint: signal.fingerprint,
    source: signal.source ?? 'signal',
    classification: signal.classification,
    severity: signal.severity,
    status: signal.status ?? 'active',
    title: signal.title,
    summary: signal.summary,
    firstSeenAt: at,
    lastSeenAt: at,
    openedAt: at,
    resolvedAt: null,
    resolution: null,
    episode: 1,
    occurrences: 1,
    acknowledged: false,
    acknowledgedAt: null,
    acknowledgedBy: null,
    owner: null,
    suggestedOwner: signal.suggestedOwner ?? ownerLabelFor(signal.labels),
    scope: signal.scope ?? null,
    labels: signal.labels ?? {},
    history: [],
    acknowledgements: [],
    ownershipHistory: [],
    policyExecutions: [],
    remediationTasks: [],
    linkedRunIds: mergeIds([], signal.linkedRunIds),
    linkedRepairIds: mergeIds([], signal.linkedRepairIds),
    linkedProofDeliveries: mergeIds([], signal.linkedProofDeliveries),
    recommendedSteps: keepNewest(signal.recommendedSteps ?? [], INCIDENT_BOUNDS.recommendedSteps),
    policy,
    escalation: { level: 0, summary: null, dueAt: addMinutes(now, policy.targetSlaMinutes), escalatedAt: null },
    verification: { required: false, status: 'not-required', summary: '' },
    remediation: { status: 'ready', owner: null, nextAction: '', blockers: [] },
    remediationPlan: [],
    updatedAt: at,
  };
  return withHistory(record, {
    at,
    kind: 'opened',
    actor: `source:${record.source}`,
    summary: `${record.severity} ${record.classification} incident opened: ${record.title}`,
    data: { fingerprint: record.fingerprint, status: record.status },
  });
}

/**
 * Folds one observation into the incident of its fingerprint: opens it, reopens it (a new
 * episode) when it was resolved, or updates severity, status, text and links. Returns null when
 * nothing worth a write changed (same facts, last seen less than a minute ago).
 */
export function applySignal(current: IncidentRecord | null, signal: IncidentSignal, now: Date): IncidentRecord | null {
  if (!current) return normalize(newIncident(signal, now));
  const at = now.toISOString();
  const status = signal.status ?? 'active';
  let next: IncidentRecord = {
    ...current,
    title: signal.title,
    summary: signal.summary,
    lastSeenAt: at,
    occurrences: current.occurrences + 1,
    linkedRunIds: mergeIds(current.linkedRunIds, signal.linkedRunIds),
    linkedRepairIds: mergeIds(current.linkedRepairIds, signal.linkedRepairIds),
    linkedProofDeliveries: mergeIds(current.linkedProofDeliveries, signal.linkedProofDeliveries),
    recommendedSteps: signal.recommendedSteps ? keepNewest(signal.recommendedSteps, INCIDENT_BOUNDS.recommendedSteps) : current.recommendedSteps,
    suggestedOwner: signal.suggestedOwner ?? ownerLabelFor(signal.labels) ?? current.suggestedOwner,
    scope: signal.scope ?? current.scope,
    labels: signal.labels ?? current.labels,
    updatedAt: at,
  };
  let material = false;
  if (current.status === 'resolved') {
    material = true;
    const policy = defaultPolicyFor(signal.classification, signal.severity, next.scope, signal.source);
    next = withHistory(
      {
        ...next,
        status,
        severity: signal.severity,
        classification: signal.classification,
        episode: current.episode + 1,
        openedAt: at,
        resolvedAt: null,
        resolution: null,
        acknowledged: false,
        acknowledgedAt: null,
        acknowledgedBy: null,
        policy,
        escalation: { level: 0, summary: null, dueAt: addMinutes(now, policy.targetSlaMinutes), escalatedAt: null },
      },
      { at, kind: 'reopened', actor: `source:${current.source}`, summary: `signal returned; episode ${current.episode + 1} opened`, data: { status } },
    );
  } else {
    if (current.severity !== signal.severity) {
      material = true;
      next = withHistory(
        { ...next, severity: signal.severity },
        { at, kind: 'severity-changed', actor: `source:${current.source}`, summary: `severity ${current.severity} -> ${signal.severity}` },
      );
    }
    if (current.status !== status) {
      material = true;
      next = withHistory(
        { ...next, status },
        { at, kind: 'status-changed', actor: `source:${current.source}`, summary: `status ${current.status} -> ${status}` },
      );
    }
  }
  material ||=
    current.title !== next.title ||
    current.summary !== next.summary ||
    current.linkedRunIds.length !== next.linkedRunIds.length ||
    current.linkedRepairIds.length !== next.linkedRepairIds.length;
  if (!material && now.getTime() - Date.parse(current.lastSeenAt) < LAST_SEEN_REFRESH_MS) return null;
  return normalize(next);
}

export function resolveRecord(current: IncidentRecord, now: Date, reason: string, actor: string): IncidentRecord | null {
  if (current.status === 'resolved') return null;
  const at = now.toISOString();
  return normalize(
    withHistory(
      { ...current, status: 'resolved', resolvedAt: at, resolution: reason, updatedAt: at, escalation: { ...current.escalation, dueAt: null } },
      { at, kind: 'resolved', actor, summary: reason },
    ),
  );
}

/**
 * The lane that verifies the incident's remediation: the policy's, else the type that verifies
 * incidents (its module declares the role); a manual code change is always checked by that type
 * against its scope.
 */
export function verifierLaneOf(record: IncidentRecord): string {
  const manualChange = episodeTasks(record).some((t) => t.role === 'manual' && t.taskType === buildRefactorType.type);
  return manualChange && record.scope ? typeWithRole('verifies-incidents') : (record.policy.verifierTaskType ?? typeWithRole('verifies-incidents'));
}

const VERDICT_STATUS = { passed: 'passed', failed: 'failed', inconclusive: 'pending' } as const;

/**
 * Status of a completed remediation as the verification sees it. A verifier run that succeeded
 * is only half of it: its verdict (src/incidents/verification.ts) says whether the incident's own
 * condition was seen gone.
 */
function verificationOf(record: IncidentRecord): IncidentRecord['verification'] {
  const tasks = episodeTasks(record);
  const verifiers = tasks.filter((t) => t.role === 'verifier');
  const manualChange = tasks.some((t) => t.role === 'manual' && t.taskType === buildRefactorType.type);
  const required = record.policy.verifierTaskType !== null || manualChange;
  const last = verifiers.at(-1);
  if (last?.verdict) return { required, status: VERDICT_STATUS[last.verdict.outcome], summary: last.verdict.summary };
  if (last) {
    const stopped = last.status === 'failed' || last.status === 'rejected' || last.status === 'cancelled';
    // Incidents resolved before verdicts were recorded keep the verification they were resolved by.
    const status = stopped ? 'failed' : last.status === 'success' && record.status === 'resolved' ? 'passed' : 'queued';
    const checking = last.status === 'success' && status === 'queued' ? "; checking the incident's own condition" : '';
    return { required, status, summary: `${last.taskType} run ${last.runId}: ${last.status}${checking}` };
  }
  if (!required) return { required, status: 'not-required', summary: 'no verifier lane applies' };
  const lane = verifierLaneOf(record);
  return { required, status: 'pending', summary: `${lane} runs once a remediation succeeds` };
}

const ACTIVE_TASK = new Set(['queued', 'awaiting-approval', 'running', 'retrying']);

/** Remediation status, next action, blockers and the plan, recomputed from the record's facts. */
function remediationOf(record: IncidentRecord, verification: IncidentRecord['verification']) {
  const tasks = episodeTasks(record).filter((t) => t.role === 'primary' || t.role === 'manual');
  const last = tasks.at(-1);
  const primaryAttempts = tasks.filter((t) => t.role === 'primary').length;
  const blockers: string[] = [];
  let status: IncidentRecord['remediation']['status'];
  let nextAction: string;
  if (record.status === 'resolved') {
    status = 'resolved';
    nextAction = 'none: resolved';
  } else if (last && ACTIVE_TASK.has(last.status)) {
    status = 'in-progress';
    nextAction = last.status === 'awaiting-approval' ? `decide approval of ${last.taskType} task ${last.taskId}` : `wait for ${last.taskType} run ${last.runId}`;
  } else if (last && (last.status === 'failed' || last.status === 'rejected' || last.status === 'cancelled')) {
    status = 'blocked';
    blockers.push(`${last.taskType} run ${last.runId} ${last.status}`);
    // An operator who cancelled the remediation decided against it: no automatic retry follows.
    const retryLeft = last.status !== 'cancelled' && last.role === 'primary' && record.policy.autoRetryBlockedRemediation && primaryAttempts < record.policy.maxAutoRemediationAttempts;
    nextAction = retryLeft ? `automatic retry of ${last.taskType}` : 'operator: start a remediation (POST /api/incidents/:id/remediate)';
  } else if (last && last.status === 'success' && verification.status === 'failed') {
    // The remediation ran, but the verification found the cause still there (or the verifier failed).
    status = 'blocked';
    blockers.push(`verification failed: ${verification.summary}`);
    nextAction = 'operator: remove the cause the verification found, or start another remediation (POST /api/incidents/:id/remediate)';
  } else if (last && last.status === 'success') {
    status = 'watching';
    const verified = verification.status === 'passed' || episodeTasks(record).some((t) => t.role === 'verifier' && t.verdict);
    nextAction = verified ? 'watch for the signal to clear' : `verify with ${verifierLaneOf(record)}`;
  } else if (record.status === 'watching') {
    status = 'watching';
    nextAction = 'watch: the signal is under its threshold';
  } else {
    status = 'ready';
    nextAction = record.policy.remediationTaskType ? `queue ${record.policy.remediationTaskType}` : 'operator: act on the signal';
  }
  if (record.status !== 'resolved' && !record.owner) blockers.push('no owner assigned');
  const plan: IncidentRecord['remediationPlan'] = [
    { step: 1, title: 'Assign an owner', taskType: null, status: record.owner ? 'done' : 'pending' },
  ];
  if (record.policy.remediationTaskType || last) {
    const lane = last?.taskType ?? record.policy.remediationTaskType;
    const planStatus = status === 'in-progress' ? 'in-progress' : last?.status === 'success' ? 'done' : status === 'blocked' ? 'blocked' : record.status === 'resolved' ? 'skipped' : 'pending';
    plan.push({ step: plan.length + 1, title: `Remediate with ${lane}`, taskType: lane, status: planStatus });
  }
  if (verification.required) {
    const v = verification.status;
    plan.push({
      step: plan.length + 1,
      title: `Verify with ${verifierLaneOf(record)}`,
      taskType: verifierLaneOf(record),
      status: v === 'passed' ? 'done' : v === 'failed' ? 'blocked' : v === 'queued' ? 'in-progress' : record.status === 'resolved' ? 'skipped' : 'pending',
    });
  }
  plan.push({ step: plan.length + 1, title: 'Resolve', taskType: null, status: record.status === 'resolved' ? 'done' : 'pending' });
  return { remediation: { status, owner: record.owner, nextAction, blockers }, remediationPlan: plan };
}

/** Recomputes the derived sub-objects (verification, remediation, plan) from the record's facts. */
export function normalize(record: IncidentRecord): IncidentRecord {
  const verification = verificationOf(record);
  return { ...record, verification, ...remediationOf(record, verification) };
}
