import type { IncidentSeverity, IncidentStatus } from './read-port.js';

export type { IncidentSeverity, IncidentStatus } from './read-port.js';

/** Where a signal came from; sources the sweep derives are resolved by the sweep when they clear. */
export const INCIDENT_SOURCES = ['run', 'service-gap', 'approval-backlog', 'persistence', 'coordination', 'knowledge', 'alert', 'signal'] as const;
export type IncidentSource = (typeof INCIDENT_SOURCES)[number];

export const REMEDIATION_STATUSES = ['ready', 'in-progress', 'blocked', 'watching', 'resolved'] as const;
export type RemediationStatus = (typeof REMEDIATION_STATUSES)[number];

/**
 * One observation of a problem, from any source. The fingerprint is the dedupe key: every signal
 * with the same fingerprint lands on the same incident (its id is derived from the fingerprint).
 */
export interface IncidentSignal {
  fingerprint: string;
  source?: IncidentSource;
  classification: string;
  severity: IncidentSeverity;
  /** `watching` while the signal is under its threshold (a run still retrying); default `active`. */
  status?: Exclude<IncidentStatus, 'resolved'>;
  title: string;
  summary: string;
  linkedRunIds?: string[];
  linkedRepairIds?: string[];
  linkedProofDeliveries?: string[];
  recommendedSteps?: string[];
  /** A suggested owner (an alert's `owner`/`team` label); the assign-owner policy prefers it. */
  suggestedOwner?: string;
  /** Workspace-relative path the incident concerns, when known (lets a verifier lane target it). */
  scope?: string;
  labels?: Record<string, string>;
}

export interface IncidentPolicy {
  policyId: string;
  autoRetryBlockedRemediation: boolean;
  maxAutoRemediationAttempts: number;
  autoEscalateOnBreach: boolean;
  remediationTaskType: string | null;
  verifierTaskType: string | null;
  escalationTaskType: string | null;
  targetSlaMinutes: number;
}

export const POLICY_ACTIONS = ['assign-owner', 'queue-remediation', 'retry-remediation', 'queue-verifier', 'escalate'] as const;
export type PolicyActionName = (typeof POLICY_ACTIONS)[number];

export interface PolicyExecution {
  executionId: string;
  policyId: string;
  action: PolicyActionName;
  at: string;
  summary: string;
  taskType: string | null;
  runId: string | null;
  taskId: string | null;
  idempotencyKey: string | null;
  /** `admitted`: a task started; `duplicate`: the key already owned a run; `applied`: a ledger change only. */
  outcome: 'admitted' | 'duplicate' | 'applied';
}

export type RemediationTaskRole = 'primary' | 'verifier' | 'escalation' | 'manual';
/** `cancelled`: an operator stopped the task's run (it is settled, and neither a success nor a fault). */
export type RemediationTaskStatus = 'queued' | 'awaiting-approval' | 'running' | 'retrying' | 'success' | 'failed' | 'rejected' | 'cancelled';

export interface RemediationTask {
  taskId: string;
  runId: string;
  taskType: string;
  role: RemediationTaskRole;
  /** The incident episode the task serves. */
  episode: number;
  /** Verifier tasks: the task id of the remediation they verify. */
  verifies: string | null;
  /** 1, 2, ... for primary remediation attempts; the escalation level for escalation tasks. */
  attempt: number;
  status: RemediationTaskStatus;
  requestedBy: string;
  requestedAt: string;
  updatedAt: string;
  /** Set once an approval replays the held run: the run that carries the work. */
  replayRunId: string | null;
  note: string | null;
  /** Verifier tasks, once their run succeeded: what the verification checked and found. */
  verdict?: VerificationVerdict;
}

/**
 * The outcome of one verification: `passed` when the verifier's own reading is clear and the
 * incident's condition is gone; `failed` when either is not; `inconclusive` when the reading is
 * clear but the condition is one only its source can clear (an alert, a module's signal).
 */
export interface VerificationVerdict {
  outcome: 'passed' | 'failed' | 'inconclusive';
  /** What was checked and what was seen. */
  summary: string;
  at: string;
}

export type HistoryKind =
  | 'opened'
  | 'reopened'
  | 'severity-changed'
  | 'status-changed'
  | 'resolved'
  | 'acknowledged'
  | 'owner-changed'
  | 'policy'
  | 'remediation-queued'
  | 'remediation-updated'
  | 'verification-updated'
  | 'escalated';

export interface HistoryEntry {
  at: string;
  kind: HistoryKind;
  actor: string;
  summary: string;
  data?: Record<string, unknown>;
}

export interface IncidentRecord {
  incidentId: string;
  fingerprint: string;
  source: IncidentSource;
  classification: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  title: string;
  summary: string;
  firstSeenAt: string;
  lastSeenAt: string;
  /** When the current episode opened (first seen, or the last reopening); SLA clocks start here. */
  openedAt: string;
  resolvedAt: string | null;
  resolution: string | null;
  /** 1 for the first episode; a resolved incident whose signal returns reopens as the next. */
  episode: number;
  occurrences: number;
  acknowledged: boolean;
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  owner: string | null;
  suggestedOwner: string | null;
  scope: string | null;
  labels: Record<string, string>;
  history: HistoryEntry[];
  acknowledgements: Array<{ at: string; actor: string; note: string | null }>;
  ownershipHistory: Array<{ at: string; owner: string; previousOwner: string | null; actor: string; source: 'operator' | 'policy'; note: string | null }>;
  policyExecutions: PolicyExecution[];
  remediationTasks: RemediationTask[];
  linkedRunIds: string[];
  linkedRepairIds: string[];
  linkedProofDeliveries: string[];
  recommendedSteps: string[];
  policy: IncidentPolicy;
  escalation: { level: number; summary: string | null; dueAt: string | null; escalatedAt: string | null };
  verification: { required: boolean; status: 'not-required' | 'pending' | 'queued' | 'passed' | 'failed'; summary: string };
  remediation: { status: RemediationStatus; owner: string | null; nextAction: string; blockers: string[] };
  remediationPlan: Array<{ step: number; title: string; taskType: string | null; status: 'pending' | 'in-progress' | 'done' | 'blocked' | 'skipped' }>;
  updatedAt: string;
}

/** Bounds of the arrays an incident keeps (newest kept): a long-lived incident stays a small document. */
export const INCIDENT_BOUNDS = {
  history: 200,
  acknowledgements: 50,
  ownershipHistory: 50,
  policyExecutions: 100,
  remediationTasks: 50,
  linkedIds: 100,
  recommendedSteps: 20,
} as const;
