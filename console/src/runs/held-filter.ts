import type { RunListAnswer } from '../api/types.js';
import { HELD_FILTER, isAwaitingApproval } from './held.js';

export const RUNS_PATH = '/api/tasks/runs';

/** The little of the service's OpenAPI document that says which query parameters the runs list takes. */
export interface OpenApiDocument {
  paths?: Record<string, { get?: { parameters?: Array<{ name?: string }> } } | undefined>;
}

/** True when the service's runs list takes `queueState` (a service that does not would refuse it with 400). */
export function acceptsQueueState(doc: OpenApiDocument | null | undefined): boolean {
  return doc?.paths?.[RUNS_PATH]?.get?.parameters?.some((p) => p.name === 'queueState') ?? false;
}

/**
 * The list query for a status filter: held runs are the pending ones whose queue state is
 * `held` (`?status=pending&queueState=held` where the service takes it; else the pending ones,
 * filtered here by heldOnly). Any other value is a status.
 */
export function runListQuery(filter: string, queueStateFilter: boolean): { status?: string; queueState?: string } {
  if (filter === HELD_FILTER) return queueStateFilter ? { status: 'pending', queueState: 'held' } : { status: 'pending' };
  return filter ? { status: filter } : {};
}

/**
 * The held runs of a page read with the held filter. A service that filters on the queue state
 * answers only held runs and its `total` counts them all; otherwise the page holds pending runs
 * of every kind, so it is filtered here and `total` is what this page holds (`filteredHere` says
 * so, for the caption).
 */
export function heldOnly(page: RunListAnswer): RunListAnswer & { filteredHere: boolean } {
  const held = page.items.filter(isAwaitingApproval);
  if (held.length === page.items.length) return { ...page, filteredHere: false };
  return { ...page, items: held, total: held.length, filteredHere: true };
}
