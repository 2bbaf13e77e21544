import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import { stateList, type HistoricalCollection } from './collections.js';

export interface HistoricalPage {
  collection: HistoricalCollection;
  total: number;
  limit: number;
  offset: number;
  /** Newest first. Runs appear in their short history form, never with payload or result values. */
  items: unknown[];
}

/** The history form of a run: what happened and when, without payload or result (those stay on the run route). */
export function runHistoryItem(run: RunRecord): Record<string, unknown> {
  return {
    runId: run.runId,
    taskId: run.taskId,
    type: run.type,
    internal: run.internal,
    status: run.status,
    attempt: run.attempt,
    source: run.source,
    createdAt: run.createdAt,
    startedAt: run.startedAt,
    finishedAt: run.finishedAt,
    failureReason: run.failureReason,
  };
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
