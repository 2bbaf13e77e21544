/**
 * The run ids the service names for itself, in one list. Each module that makes such an id takes
 * its prefix from here, and a client's idempotency key (which becomes a run id) may use none of
 * them (src/runtime/payload-validation.ts): a client that could take one of these ids first would
 * have the service's own run suppressed as a duplicate of theirs.
 */
export const SERVICE_RUN_ID_PREFIXES = {
  /** A user schedule's firing: `schedule:<schedule id>:<fire time>` (src/schedules/). */
  schedule: 'schedule:',
  /** A flow step: `flow:<flow id>:<key>` (reserved for flows; DECISIONS.md). */
  flow: 'flow:',
  /** The approved work of a held run: `approval-replay:<task id>` (src/runtime/approvals.ts). */
  approvalReplay: 'approval-replay:',
  /** An incident policy's task: `incident:<incident id>:e<episode>:<role>` (src/incidents/policy.ts). */
  incident: 'incident:',
  /** The built-in heartbeat's slot: `heartbeat:<minute>` (src/scheduler/scheduler.ts). */
  heartbeat: 'heartbeat:',
  /** The built-in nightly batch's slot and its follow-ups: `nightly-batch:<minute or day>…`. */
  nightlyBatch: 'nightly-batch:',
  /** A tracked docs repair: `drift-repair:<doc set>:<window>` (src/knowledge/repair-loop.ts). */
  driftRepair: 'drift-repair:',
  /** Work the autonomous intake accepted: `autonomous-work:<source>:<item id>` (src/business/intake.ts). */
  autonomousWork: 'autonomous-work:',
  /** A work cycle's continuation held at a boundary: `work-approval:<task id>:step-<n>`. */
  workApproval: 'work-approval:',
  /** A business cycle's run and the task its planner chose (src/business/service.ts). */
  businessCycle: 'business-cycle:',
  businessTask: 'business-task:',
  /** The run every start records: `startup:<started at>:<owner>` (src/app.ts). */
  startup: 'startup:',
  /** The one run of a debounce window: `debounce:<key digest>:<window ms>:<window index>` (src/runtime/debounce.ts). */
  debounce: 'debounce:',
} as const;

/**
 * An integration workflow names its steps after its own run id (`<workflow>:step-<n>`, and
 * `…:reroute` for a failed step's reroute), which a client may have chosen: the mark is a suffix,
 * not a prefix (src/runtime/workflow-driver.ts).
 */
export const WORKFLOW_STEP_MARK = ':step-';
const WORKFLOW_CHILD_ENDING = /:step-\d+(?::reroute)?$/;

/**
 * Why a client may not use `key` as a run id (a sentence naming the reserved part), or null.
 * Compared case-sensitively, as run ids are.
 */
export function reservedRunIdRefusal(key: string): string | null {
  const prefix = Object.values(SERVICE_RUN_ID_PREFIXES).find((p) => key.startsWith(p));
  if (prefix !== undefined) return `starts with '${prefix}', a prefix the service reserves for its own run ids`;
  if (WORKFLOW_CHILD_ENDING.test(key)) return `ends like a workflow step's run id ('${WORKFLOW_STEP_MARK}<n>'), which the service reserves`;
  return null;
}
