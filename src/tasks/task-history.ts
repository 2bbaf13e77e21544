import type { OrchestratorState, TaskRecord } from './types.js';
import { STATE_BOUNDS } from './types.js';

/** Adds one finished run to the OrchestratorState: tasksProcessed and the bounded taskHistory. */
export function withTaskRecord(state: OrchestratorState, record: TaskRecord): OrchestratorState {
  return {
    ...state,
    tasksProcessed: state.tasksProcessed + 1,
    taskHistory: [...state.taskHistory, record].slice(-STATE_BOUNDS.taskHistory),
  };
}
