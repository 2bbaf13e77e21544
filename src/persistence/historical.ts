import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import { toRunView, type RunView } from '../runtime/run-view.js';
import { stateList, type HistoricalCollection } from './collections.js';

export interface HistoricalPage {
  collection: HistoricalCollection;
  total: number;
  limit: number;
  offset: number;
  /** Newest first. Runs appear in their short history form, never with payload or result values. */
  items: unknown[];
}

/** The run view's fields a history item keeps: what happened and when, never payload or result (those stay on the run route). */
const HISTORY_FIELDS = ['runId', 'taskId', 'type', 'internal', 'status', 'attempt', 'source', 'createdAt', 'startedAt', 'finishedAt', 'failureReason'] as const satisfies readonly (keyof RunView)[];

/**
 * The history form of a run: those fields of its API view (src/runtime/run-view.ts), the one
 * projection of a run, so a field is shaped in one place for both routes.
 */
export function runHistoryItem(run: RunRecord): Record<string, unknown> {
  const view = toRunView(run);
  return Object.fromEntries(HISTORY_FIELDS.map((field) => [field, view[field]]));
}

/** One page of a historical collection, newest first. */
export async function historicalPage(
  store: StateStore,
  collection: HistoricalCollection,
  limit: number,
  offset: number,
): Promise<HistoricalPage> {
  if (collection === 'runs') {
    const { items, total } = await store.listRuns({ includeInternal: true, order: 'newest', limit, offset });
    return { collection, total, limit, offset, items: items.map(runHistoryItem) };
  }
  if (collection === 'telemetry' || collection === 'milestones') {
    const { items, total } = await store.listAppended(collection, { limit, offset });
    return { collection, total, limit, offset, items };
  }
  const list = stateList(await store.getState(), collection);
  const newestFirst = [...list].reverse();
  return { collection, total: list.length, limit, offset, items: newestFirst.slice(offset, offset + limit) };
}
