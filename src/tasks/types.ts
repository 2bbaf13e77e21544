import type { ExecuteEvidence, ToolGatePreflight } from '../agents/tool-gate.js';

/** Run status as named in responses (the spec's run/admission vocabulary, minus admission-only words). */
export const RUN_STATUSES = ['pending', 'running', 'success', 'failed', 'retrying'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** The spec's queueAttempts[] entry states. */
export type QueueAttemptState =
  | 'admitted'
  | 'running'
  | 'awaiting-approval'
  | 'coordination-blocked'
  | 'success'
  | 'failed';

/** Where a run sits in the queue: `ready` can be claimed, `held` waits for an approval decision. */
export type QueueState = 'ready' | 'held' | null;

export interface QueueAttempt {
  /** Durable identity of one admission of the run: `<runId>#<attempt>`. */
  attemptId: string;
  attempt: number;
  state: QueueAttemptState;
  at: string;
  ownerId?: string;
  detail?: string;
}

export interface RunEvent {
  seq: number;
  at: string;
  kind: 'queue' | 'approval' | 'retry' | 'repair' | 'execution';
  name: string;
  detail?: string;
  data?: Record<string, unknown>;
}

export type ApprovalStatus = 'not-required' | 'pending' | 'approved' | 'rejected' | 'expired';

export interface RunApproval {
  required: boolean;
  status: ApprovalStatus;
  reason: string | null;
  requestedAt: string | null;
  decidedAt: string | null;
  decidedBy: string | null;
  note: string | null;
  replayRunId: string | null;
  replayTaskId: string | null;
}

export interface RetryRecovery {
  attempt: number;
  retryLimit: number;
  backoffMs: number;
  nextRetryAt: string;
  lastError: string;
}

export interface RunAccounting {
  model: string | null;
  metered: boolean;
  costUsd: number;
  note: string;
  latencyMs: number | null;
  usage: { inputTokens: number; outputTokens: number; totalTokens: number };
  budget: { limitUsd: number | null; remainingUsd: number | null };
}

/** The persisted run record. Derived views (workflow, workflowGraph, proofLinks, resultSummary) are computed on read. */
export interface RunRecord {
  runId: string;
  taskId: string;
  type: string;
  internal: boolean;
  status: RunStatus;
  queueState: QueueState;
  /** Admission order, assigned by the store on first insert (FIFO claims). */
  seq: number;
  payload: Record<string, unknown>;
  source: 'api' | 'scheduler' | 'approval-replay' | 'retry' | 'startup' | 'system' | 'workflow';
  requestedBy: string;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  attempt: number;
  claim: { ownerId: string; leaseUntil: string } | null;
  queueAttempts: QueueAttempt[];
  events: RunEvent[];
  approval: RunApproval;
  approvedFromTaskId: string | null;
  retry: RetryRecovery | null;
  result: unknown;
  error: string | null;
  failureReason: string | null;
  accounting: RunAccounting | null;
  operatorSummary: string | null;
  recommendedNextActions: string[] | null;
  specialistContract: SpecialistContract | null;
  /** How often a restart found this run mid-execution; the second time it fails as `interrupted`. */
  interruptions?: number;
  /** The running worker's payload directory; its `result.json` lets recovery finish the attempt. */
  workerDirectory?: string | null;
  /** Set on a child run of an integration workflow: the workflow run and the step it serves. */
  workflowParent?: WorkflowParent | null;
  /** Set on an integration workflow run once its plan is recorded: the live state of each step. */
  workflowChildren?: WorkflowChild[];
  /** Tool-gated lanes: the preflight that allowed or refused the attempt, and what it then exercised. */
  toolGate?: RunToolGate | null;
  /** Set when the run belongs to a tracked repair (drift-repair): src/knowledge/repair-loop.ts. */
  repair?: RunRepair | null;
}

export interface RunRepair {
  repairId: string;
  classification: string;
  status: 'queued' | 'running' | 'retrying' | 'verified' | 'failed';
  verificationMode: string;
  verificationSummary: string | null;
}

export interface RunToolGate {
  preflight: ToolGatePreflight;
  execute: ExecuteEvidence | null;
}

export interface WorkflowParent {
  runId: string;
  stepIndex: number;
  role: 'step' | 'reroute';
}

export const WORKFLOW_STEP_STATES = [
  'waiting',
  'queued',
  'awaiting-approval',
  'running',
  'retrying',
  'success',
  'failed',
  'refused',
  'skipped',
] as const;
export type WorkflowStepState = (typeof WORKFLOW_STEP_STATES)[number];

export interface WorkflowChild {
  stepIndex: number;
  role: 'step' | 'reroute';
  type: string;
  description: string;
  runId: string;
  state: WorkflowStepState;
  /** Why a step was refused before admission (invalid payload, scope outside the workspace). */
  detail: string | null;
  updatedAt: string;
}

export interface SpecialistContract {
  role: string;
  workflowStage: string;
  deliverable: string;
  status: string;
  refusalReason: string | null;
  escalationReason: string | null;
}

/** What an in-process handler returns: the spec's TaskResult. */
export interface TaskResult {
  status: 'pending' | 'completed' | 'error';
  result?: unknown;
  error?: string;
  durationMs?: number;
}

export interface TaskRecord {
  type: string;
  status: 'pending' | 'completed' | 'error';
  timestamp: string;
  durationMs: number;
  result?: unknown;
  error?: string;
}

export interface CommunityRecord {
  timestamp: string;
  postId: string;
  postTitle: string;
  subcommunity: string;
  draftResponse: string;
  confidence: number;
  approved?: boolean;
  posted?: string;
}

export interface RSSRecord {
  timestamp: string;
  feedUrl: string;
  itemTitle: string;
  itemUrl: string;
  publishedAt: string;
  relevanceScore: number;
  urgency: 'high' | 'medium' | 'low';
  notes?: string;
  /** Set by nightly-batch: true on priority leads cleared for community-response without a person. */
  selectedForDraft?: boolean;
  /** Set by nightly-batch: how the lead was routed (selected, manual-review, promotion, none). */
  draftDecision?: 'selected' | 'manual-review' | 'promotion' | 'none';
}

export interface DeploymentRecord {
  timestamp: string;
  agentName: string;
  deployPath: string;
  metadata?: { version?: string; tags?: string[]; config?: unknown };
}

export interface OrchestratorState {
  lastStartedAt: string | null;
  tasksProcessed: number;
  taskHistory: TaskRecord[];
  docsIndexed: string[];
  communityResponses: CommunityRecord[];
  rssDrafts: RSSRecord[];
  deployedAgents: DeploymentRecord[];
  notes?: string;
}

export const STATE_BOUNDS = { taskHistory: 50, communityResponses: 100, rssDrafts: 200 } as const;

export function emptyOrchestratorState(): OrchestratorState {
  return {
    lastStartedAt: null,
    tasksProcessed: 0,
    taskHistory: [],
    docsIndexed: [],
    communityResponses: [],
    rssDrafts: [],
    deployedAgents: [],
  };
}
