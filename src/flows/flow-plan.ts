import type { FlowStepLink } from '../domain/run-record.js';
import type { FlowDoc } from './flow-definition.js';
import { ENDED_STEP_STATES, type FlowStepState } from './flow-step-state.js';

export type FlowStatus = 'running' | 'success' | 'failed' | 'cancelled';
type SkipPolicy = NonNullable<FlowStepLink['skipped']>['policy'];

/** What the flow does next with one waiting step. */
export type StepAction =
  | { kind: 'promote'; key: string }
  | { kind: 'skip'; key: string; policy: SkipPolicy; reason: string }
  | { kind: 'cancel'; key: string };

/** Every step's state, and for skipped ones the policy that skipped them. */
export interface FlowSnapshot {
  states: ReadonlyMap<string, FlowStepState>;
  skippedBy: ReadonlyMap<string, SkipPolicy>;
  cancelled: boolean;
}

/** True once a step was skipped under `fail`: the flow has failed and no waiting step starts any more. */
function flowHasFailed(skippedBy: ReadonlyMap<string, SkipPolicy>): boolean {
  for (const policy of skippedBy.values()) if (policy === 'fail' || policy === 'flow-failed') return true;
  return false;
}

/**
 * What to do with each waiting step, decided from stored states only (so any instance, at any
 * time, decides the same; the writes are compare-and-sets, so deciding twice writes once).
 * Steps are visited in dependency order with the decisions so far applied, so a chain of skips
 * settles in one pass; a `fail` skip found late skips the waiting steps seen before it too.
 */
export function planFlow(doc: FlowDoc, snapshot: FlowSnapshot): StepAction[] {
  const states = new Map(snapshot.states);
  const skippedBy = new Map(snapshot.skippedBy);
  const actions = new Map<string, StepAction>();
  for (let pass = 0; pass < 2; pass += 1) {
    for (const step of doc.steps) {
      if (states.get(step.key) !== 'waiting') continue;
      const action = decideStep(step, states, skippedBy, snapshot.cancelled);
      if (!action) continue;
      actions.set(step.key, action);
      states.set(step.key, action.kind === 'promote' ? 'queued' : action.kind === 'skip' ? 'skipped' : 'cancelled');
      if (action.kind === 'skip') skippedBy.set(step.key, action.policy);
    }
    if (!flowHasFailed(skippedBy)) break;
  }
  return [...actions.values()];
}

/**
 * What to do with one waiting step given its dependencies' states (`states` needs only those),
 * null while one of them has not ended. `skippedBy` and `cancelled` say whether the flow already
 * failed or was cancelled, so every waiting step ends.
 */
export function decideStep(
  step: FlowDoc['steps'][number],
  states: ReadonlyMap<string, FlowStepState>,
  skippedBy: ReadonlyMap<string, SkipPolicy>,
  cancelled: boolean,
): StepAction | null {
  if (cancelled) return { kind: 'cancel', key: step.key };
  if (flowHasFailed(skippedBy)) return { kind: 'skip', key: step.key, policy: 'flow-failed', reason: 'the flow failed: a step was skipped under onDependencyFailure "fail"' };
  const depStates = step.dependsOn.map((dep) => [dep, states.get(dep) ?? 'missing'] as const);
  if (depStates.some(([, state]) => !ENDED_STEP_STATES.has(state))) return null;
  const unsuccessful = depStates.filter(([, state]) => state !== 'success');
  if (unsuccessful.length === 0 || step.onDependencyFailure === 'run') return { kind: 'promote', key: step.key };
  const reason = `dependency ${unsuccessful.map(([dep, state]) => `'${dep}' ${state}`).join(', ')} (onDependencyFailure "${step.onDependencyFailure}")`;
  return { kind: 'skip', key: step.key, policy: step.onDependencyFailure, reason };
}

/** The flow's status from its steps: it ends once every step has. */
export function flowStatusOf(doc: FlowDoc, snapshot: FlowSnapshot): FlowStatus {
  const states = doc.steps.map((s) => snapshot.states.get(s.key) ?? 'missing');
  if (!states.every((state) => ENDED_STEP_STATES.has(state))) return 'running';
  if (snapshot.cancelled) return 'cancelled';
  const fine = doc.steps.every((s) => snapshot.states.get(s.key) === 'success' || snapshot.skippedBy.get(s.key) === 'skip');
  return fine ? 'success' : 'failed';
}
