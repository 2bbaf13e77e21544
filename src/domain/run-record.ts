/**
 * The run record and its parts: what the store keeps of one admitted task request, shared by
 * the runtime (src/runtime/), every store driver (src/store/) and the readers built on them.
 */
/**
 * Run status as named in responses (the spec's run/admission vocabulary, minus admission-only
 * words, plus `cancelled`: an operator stopped the run, DECISIONS.md "Run control"; plus the
 * two words of flow steps, DECISIONS.md "Platform": `waiting`, its dependencies have not ended
 * and it holds no slot, and `skipped`, ended without running because of its dependencies'
 * outcome). Only flow step runs are ever `waiting` or `skipped`.
 */
export const RUN_STATUSES = ['waiting', 'pending', 'running', 'success', 'failed', 'retrying', 'cancelled', 'skipped'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

/** Statuses a run never leaves: nothing executes it again and retention may prune it. */
export const TERMINAL_RUN_STATUSES: readonly RunStatus[] = ['success', 'failed', 'cancelled', 'skipped'];

export function isTerminalStatus(status: RunStatus): boolean {
  return status === 'success' || status === 'failed' || status === 'cancelled' || status === 'skipped';
}

/** What names a run and where it stands, the head of every short form of it (control-plane window, memory recall). */
export function runHeadline(run: RunRecord): Pick<RunRecord, 'runId' | 'type' | 'status' | 'createdAt' | 'finishedAt'> {
  return { runId: run.runId, type: run.type, status: run.status, createdAt: run.createdAt, finishedAt: run.finishedAt };
}

/** The spec's queueAttempts[] entry states. */
export type QueueAttemptState =
  | 'admitted'
  | 'running'
  | 'awaiting-approval'
  | 'coordination-blocked'
  | 'success'
  | 'failed';

/**
 * Where a run sits in the queue: `ready` can be claimed, `held` waits for an approval decision,
 * `waiting` is a flow step whose dependencies have not ended (no claim takes it; src/flows/).
 */
export type QueueState = 'ready' | 'held' | 'waiting' | null;

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
  /**
   * Set by the store when it writes the event, never by the code that appends it: the commit
   * order of the write that appended it (the event streams' cursor; docs/events.md). Absent on
   * events stored before stamps existed (read as 0).
   */
  tx?: number;
  /** Set by the store with `tx`: the run's status right after the write that appended the event. */
  status?: RunStatus;
}

export type ApprovalStatus = 'not-required' | 'pending' | 'approved' | 'rejected' | 'expired' | 'cancelled';

/** One decision (or the service's own: expiry, cancel) taken on a held run's approval, oldest first. */
export interface ApprovalDecisionEntry {
  at: string;
  /** The actor whose key decided, or `service` for expiry and escalation. */
  actor: string;
  decision: 'approved' | 'rejected' | 'expired' | 'escalated' | 'cancelled';
  note: string | null;
  /** What an approver added to the replay's payload (the type's approval input schema); absent when nothing. */
  input?: Record<string, unknown>;
}

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
  /** The actor whose key requested the held run. */
  requestedBy?: string | null;
  /**
   * Every actor the held work is requested by (`requestedBy` first, then whoever shaped it: see
   * RunRecord.requesters); none of them may decide it where self-approval is off. Absent on
   * approvals held before it was recorded: `requestedBy` alone.
   */
  requesters?: string[];
  /** When the service decides the approval itself (config approvalPolicy.expiresAfterMinutes); null: never. */
  expiresAt?: string | null;
  decisionHistory?: ApprovalDecisionEntry[];
}

/** An operator's request to stop a run, and how it ended. */
export interface RunCancellation {
  requestedAt: string;
  /** The actor whose key asked. */
  requestedBy: string;
  reason: string | null;
  /** When the run reached `cancelled` (its processes gone); null while cancelling. */
  completedAt: string | null;
  /** How a running attempt was stopped: `abort` (in-process), `SIGTERM`, `SIGKILL`; null when it never started. */
  signal: string | null;
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

/**
 * One model provider call the service made for a run (src/models/gateway.ts), as metered: the
 * run's accounting is the sum of these. Only calls that reached the provider are recorded; a call
 * the budget or the lane's policy refused was never made.
 */
export interface ModelCall {
  at: string;
  attempt: number;
  lane: string;
  model: string;
  outcome: 'ok' | 'failed';
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
  latencyMs: number;
  /** Requests sent for this call, retries included. */
  tries: number;
  error: string | null;
  /** The shared daily budget once this call was charged; null figures when no budget is configured. */
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
  source: 'api' | 'scheduler' | 'schedule' | 'rerun' | 'approval-replay' | 'retry' | 'startup' | 'system' | 'workflow' | 'flow';
  requestedBy: string;
  /**
   * Every actor the work is requested by, `requestedBy` included unless the work is another's
   * (an approval replay is its held run's requesters'): a schedule's shapers, a rerun's caller and
   * the original's requesters, a workflow's requesters for its steps (src/runtime/run-requesters.ts).
   * Absent on runs stored before it was recorded: `requestedBy` alone.
   */
  requesters?: string[];
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
  /** Set once an operator asked to cancel the run. */
  cancellation?: RunCancellation | null;
  /** A rerun: the run it repeats. */
  rerunOf?: string | null;
  /** The runs admitted as reruns of this one, oldest first. */
  reruns?: string[];
  /** Model provider calls made for the run, every attempt's (src/models/); absent when none. */
  modelCalls?: ModelCall[];
  /** A scheduled firing (`source: "schedule"`): the schedule that fired it. */
  scheduleId?: string | null;
  /** A flow step (and an approval replay of one): the flow and step it serves (src/flows/). */
  flowStep?: FlowStepLink | null;
  /**
   * The W3C trace context of the run's admission span (docs/tracing.md): every later span of
   * the run (queue wait, execution, finalize), on whichever instance, is its child. Absent when
   * the run was admitted with tracing off.
   */
  traceparent?: string | null;
  /**
   * The run's concurrency key (docs/queue.md): claims take runs round-robin across keys, and
   * limit buckets may cap runs per key. Absent or null: the run shares the unkeyed queue.
   */
  concurrencyKey?: string | null;
  /** 1 (lowest) to 5 (highest); absent on runs stored before priorities existed: DEFAULT_PRIORITY. */
  priority?: number;
  /**
   * No claim takes the run before this instant (ISO 8601): a trailing debounce's run waits for its
   * window to end (docs/queue.md). Absent or null: claimable as soon as it is ready.
   */
  notBefore?: string | null;
  /**
   * The limit buckets a claim found full for the run while it waited (docs/queue.md), for the
   * attempt named: the per-bucket wait metric counts the attempt's wait under these alone. Absent
   * or of an earlier attempt: no bucket has held the current attempt back.
   */
  bucketHolds?: { attempt: number; buckets: string[] } | null;
  /** Labels its admission gave it (domain/run-tags.ts); absent when it has none. */
  tags?: string[];
}

export const MIN_PRIORITY = 1;
export const MAX_PRIORITY = 5;
export const DEFAULT_PRIORITY = 3;
export const MAX_CONCURRENCY_KEY_LENGTH = 200;

/** Where a run queues: what a trigger, schedule or rerun may set and a claim orders by. */
export interface QueuePlacement {
  concurrencyKey: string | null;
  priority: number;
}

/** The placement a run record carries, with the defaults of records stored before placements existed. */
export function placementOf(run: Pick<RunRecord, 'concurrencyKey' | 'priority'>): QueuePlacement {
  return { concurrencyKey: run.concurrencyKey ?? null, priority: run.priority ?? DEFAULT_PRIORITY };
}

export interface FlowStepLink {
  flowId: string;
  key: string;
  /**
   * Set when the flow ended the step without running it because of its dependencies' outcome
   * (the run is stored `cancelled`; flows show it `skipped`): the policy that decided and why.
   */
  skipped?: { policy: 'fail' | 'skip' | 'flow-failed'; reason: string } | null;
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
  'cancelled',
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

/** Tool-gated lanes: what the gate decided before the lane ran, and what the lane then exercised. */
export type ToolGateDecision = 'allowed' | 'refused';

/** What the gate decided before a tool-gated lane ran, and on which evidence. */
export interface ToolGatePreflight {
  decision: ToolGateDecision;
  taskType: string;
  agentId: string;
  /** What the lane exercises (LANE_SKILL_REQUIREMENTS). */
  requiredSkills: string[];
  /** The agent's whole grant (manifest allowedSkills). */
  grantedSkills: string[];
  /** Required but not granted to the agent. */
  missingSkills: string[];
  /** Required, registered, but declared only: nothing in this build performs it. */
  nonExecutableSkills: string[];
  /** Required but absent from the skill registry. */
  unregisteredSkills: string[];
  /** Why the run was refused; null when allowed. */
  reason: string | null;
  checkedAt: string;
}

/** What the lane then did with the skills the preflight allowed. */
export interface ExecuteEvidence {
  /** The required skills of an allowed run; empty when the preflight refused (nothing ran). */
  skillsExercised: string[];
  ok: boolean;
  durationMs: number;
  failureReason: string | null;
  recordedAt: string;
}
