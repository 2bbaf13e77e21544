import { RUN_STATUSES } from '../domain/run-record.js';
import { type OrchestratorState } from '../domain/orchestrator-state.js';

/**
 * Structural checks for records the store keeps. The file driver applies them to what it reads
 * back from disk (snapshot, journal), and both drivers to what they are asked to write, so
 * nothing is stored that a restart would then refuse to load.
 *
 * Each returns null when the value is acceptable, else a short reason naming the field, which
 * ends up in the error an operator reads. They check what the store itself relies on (ids, seq,
 * status, queue state, collection shapes), not every field of every record.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function runProblem(value: unknown, where: string): string | null {
  if (!isPlainObject(value)) return `${where} is not an object`;
  if (typeof value.runId !== 'string' || value.runId === '') return `${where}.runId is not a non-empty string`;
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 1) return `${where}.seq is not a positive integer`;
  if (typeof value.type !== 'string') return `${where}.type is not a string`;
  if (typeof value.internal !== 'boolean') return `${where}.internal is not a boolean`;
  if (!(RUN_STATUSES as readonly unknown[]).includes(value.status)) return `${where}.status is not a run status`;
  if (value.queueState !== null && value.queueState !== 'ready' && value.queueState !== 'held' && value.queueState !== 'waiting') {
    return `${where}.queueState is not ready, held, waiting or null`;
  }
  return null;
}

const STATE_ARRAYS = ['taskHistory', 'docsIndexed', 'communityResponses', 'rssDrafts', 'deployedAgents'] as const;

/**
 * Checks the OrchestratorState fields of `value`. With `requireAll` false (a legacy document),
 * absent fields are accepted and filled with defaults by the reader.
 */
export function stateProblem(value: Record<string, unknown>, where: string, requireAll: boolean): string | null {
  const present = (key: string): boolean => value[key] !== undefined;
  if (present('lastStartedAt') && value.lastStartedAt !== null && typeof value.lastStartedAt !== 'string') {
    return `${where}lastStartedAt is not a string or null`;
  }
  if (present('tasksProcessed') ? !Number.isFinite(value.tasksProcessed) : requireAll) {
    return `${where}tasksProcessed is not a number`;
  }
  for (const key of STATE_ARRAYS) {
    if (present(key) ? !Array.isArray(value[key]) : requireAll) return `${where}${key} is not an array`;
  }
  if (present('docsIndexed') && !(value.docsIndexed as unknown[]).every((p) => typeof p === 'string')) {
    return `${where}docsIndexed holds a non-string entry`;
  }
  for (const key of ['taskHistory', 'communityResponses', 'rssDrafts', 'deployedAgents'] as const) {
    if (present(key) && !(value[key] as unknown[]).every(isPlainObject)) return `${where}${key} holds a non-object entry`;
  }
  if (present('notes') && typeof value.notes !== 'string') return `${where}notes is not a string`;
  return null;
}

/** The OrchestratorState part of a checked document, defaults filled in for absent fields. */
export function pickState(value: Record<string, unknown>): OrchestratorState {
  const state: OrchestratorState = {
    lastStartedAt: (value.lastStartedAt as string | null | undefined) ?? null,
    tasksProcessed: (value.tasksProcessed as number | undefined) ?? 0,
    taskHistory: (value.taskHistory as OrchestratorState['taskHistory'] | undefined) ?? [],
    docsIndexed: (value.docsIndexed as string[] | undefined) ?? [],
    communityResponses: (value.communityResponses as OrchestratorState['communityResponses'] | undefined) ?? [],
    rssDrafts: (value.rssDrafts as OrchestratorState['rssDrafts'] | undefined) ?? [],
    deployedAgents: (value.deployedAgents as OrchestratorState['deployedAgents'] | undefined) ?? [],
  };
  if (typeof value.notes === 'string') state.notes = value.notes;
  return state;
}
