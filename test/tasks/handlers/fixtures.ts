import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pino } from 'pino';
import type { Clock } from '../../../src/clock.js';
import type { AppConfig } from '../../../src/config/types.js';
import { createKnowledgeService } from '../../../src/knowledge/service.js';
import type { HandlerInput, HandlerOutcome } from '../../../src/tasks/handler-types.js';
import { emptyOrchestratorState, type OrchestratorState } from '../../../src/domain/orchestrator-state.js';
import { tempDir, testConfig } from '../../support/config.js';

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
