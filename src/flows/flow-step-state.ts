import { WORKFLOW_STEP_STATES, type RunRecord, type WorkflowStepState } from '../domain/run-record.js';

/**
 * A step's state as flows show it: an integration workflow's step words (which flows never
 * refuse: a bad step refuses the whole flow), plus `missing`: the flow's admission has not
 * written this step's run yet (a crash cut it; the sweep completes it), and `pruned`: retention
 * removed the step's run after it ended, its outcome unknown (ended, not a success).
 */
export type FlowStepState = Exclude<WorkflowStepState, 'refused'> | 'missing' | 'pruned';
export const FLOW_STEP_STATES: readonly FlowStepState[] = [
  ...WORKFLOW_STEP_STATES.filter((s): s is Exclude<WorkflowStepState, 'refused'> => s !== 'refused'),
  'missing',
  'pruned',
];

export const ENDED_STEP_STATES: ReadonlySet<FlowStepState> = new Set(['success', 'failed', 'cancelled', 'skipped', 'pruned']);

/**
 * Where a step stands. An approval-gated step's work is its approval replay, so once approved it
 * follows the replay (`replay`: that run, null while not yet admitted); a rejected or expired
 * approval ends the held run `failed`, a cancelled one `cancelled`.
 */
export function stepStateOf(run: RunRecord | null, replay: RunRecord | null, admitted = false): FlowStepState {
  if (!run) return admitted ? 'pruned' : 'missing';
  if (run.approval.replayRunId) return replay ? stepStateOf(replay, null) : 'queued';
  switch (run.status) {
    case 'pending':
      return run.queueState === 'held' ? 'awaiting-approval' : 'queued';
    case 'waiting':
    case 'skipped':
    case 'running':
    case 'retrying':
    case 'success':
    case 'failed':
    case 'cancelled':
      return run.status;
  }
}

/** The run whose result a step hands to its dependents: the replay of an approved step, else the step's own. */
export function workRunOf(run: RunRecord | null, replay: RunRecord | null): RunRecord | null {
  return run?.approval.replayRunId ? replay : run;
}
