import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Clock } from '../../src/clock.js';
import type { AppConfig } from '../../src/config/types.js';
import type { HandlerInput, HandlerOutcome } from '../../src/tasks/handler-types.js';
import { emptyOrchestratorState, type OrchestratorState } from '../../src/domain/orchestrator-state.js';
import { tempDir, testConfig } from './config.js';

/**
 * A real AppConfig for one handler test: `fields` are written as the JSON config file in a fresh
 * temp directory, which the loader resolves paths against (workspace, docs and logs live there).
 */
export function handlerConfig(fields: Record<string, unknown> = {}): AppConfig {
  const dir = tempDir('handler-');
  const file = join(dir, 'orchestrator.config.json');
  writeFileSync(file, JSON.stringify(fields));
  return testConfig({ ORCHESTRATOR_CONFIG: file }, dir);
}

export function fixedClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
}

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
