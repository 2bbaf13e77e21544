import { join } from 'node:path';
import { pino } from 'pino';
import type { Clock } from '../../src/clock.js';
import type { AppConfig } from '../../src/config/types.js';
import { createKnowledgeService } from '../../src/knowledge/service.js';
import type { HandlerInput, HandlerOutcome } from '../../src/runtime/handler-types.js';
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
    ...overrides,
  };
}

/**
 * The knowledge handlers' context as a handler test needs it: the config's paths and a knowledge
 * service over the persisted index with nothing cached to invalidate, and no repair loop (doc
 * changes are then buffered without admitting repairs).
 */
export function knowledgeContext(config: AppConfig, clock: Clock = fixedClock('2024-05-01T12:00:00.000Z')) {
  const knowledge = createKnowledgeService({ config, clock, logger: pino({ level: 'silent' }), invalidator: { invalidate: async () => undefined } });
  return { ...config, knowledge, repairLoop: null };
}

/** The file a result names (`logs/<path>` or workspace-relative), as an absolute path to read it. */
export function shownFile(config: AppConfig, shown: string): string {
  return shown.startsWith('logs/') ? join(config.logsDir, shown.slice('logs/'.length)) : join(config.workspaceRoot, shown);
}

/** The state after the outcome's update, as the runtime would apply it. */
export function applyOutcome(state: OrchestratorState, outcome: HandlerOutcome): OrchestratorState {
  return outcome.stateUpdate ? outcome.stateUpdate(state) : state;
}

export const freshState = emptyOrchestratorState;
