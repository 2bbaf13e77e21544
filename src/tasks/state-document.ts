import { STATE_BOUNDS, type OrchestratorState, type TaskRecord } from './types.js';

/**
 * The rules of the OrchestratorState document: the spec's retention (taskHistory 50,
 * communityResponses 100, rssDrafts 200) and how a finished task enters it. Arrays grow at the
 * end, so the newest are the last entries and those are the ones kept. Every store driver calls
 * boundState on write, so a reader never sees an over-long array whatever the caller handed in.
 */
export function boundState(state: OrchestratorState): OrchestratorState {
  return {
    ...state,
    taskHistory: keepNewest(state.taskHistory, STATE_BOUNDS.taskHistory),
    communityResponses: keepNewest(state.communityResponses, STATE_BOUNDS.communityResponses),
    rssDrafts: keepNewest(state.rssDrafts, STATE_BOUNDS.rssDrafts),
  };
}

function keepNewest<T>(items: T[], bound: number): T[] {
  return items.length > bound ? items.slice(items.length - bound) : items;
}

/** One finished task added to the state: tasksProcessed + 1 and the bounded taskHistory. */
export function withTaskRecord(state: OrchestratorState, record: TaskRecord): OrchestratorState {
  return {
    ...state,
    tasksProcessed: state.tasksProcessed + 1,
    taskHistory: keepNewest([...state.taskHistory, record], STATE_BOUNDS.taskHistory),
  };
}
