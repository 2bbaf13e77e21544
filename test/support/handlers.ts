import { pino } from 'pino';
import type { HandlerInput, HandlerOutcome } from '../../src/tasks/handler-types.js';
import { emptyOrchestratorState, type OrchestratorState } from '../../src/domain/orchestrator-state.js';
import { fixedClock } from './clocks.js';

/** What the runtime hands a task handler, for a run of `type` with `payload`, at a fixed time. */
export function handlerInput(type: string, payload: Record<string, unknown> = {}, overrides: Partial<HandlerInput> = {}): HandlerInput {
  return {
    runId: `run-${type}-1`,
    taskId: `task-${type}-1`,
    type,
    payload,
    signal: new AbortController().signal,
    logger: pino({ level: 'silent' }),
    clock: fixedClock('2024-05-01T12:00:00.000Z'),
    serviceStartedAt: new Date('2024-05-01T11:00:00.000Z'),
    queueDepth: async () => 0,
    ...overrides,
  };
}

/** The state after the outcome's update, as the runtime would apply it. */
export function applyOutcome(state: OrchestratorState, outcome: HandlerOutcome): OrchestratorState {
  return outcome.stateUpdate ? outcome.stateUpdate(state) : state;
}

export const freshState = emptyOrchestratorState;
