import type { StateStore } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import type { OrchestratorState } from '../domain/orchestrator-state.js';

/**
 * The historical collections every store keeps, named the same way in the summary, the paged
 * historical route, the export and the migration evidence. Runs and append collections are
 * paged from the store; the state lists are the bounded arrays of the OrchestratorState
 * document; keyed documents are `docs:<collection>`.
 */
export const STATE_LIST_COLLECTIONS = ['taskHistory', 'communityResponses', 'rssDrafts', 'deployedAgents', 'docsIndexed'] as const;
export type StateListCollection = (typeof STATE_LIST_COLLECTIONS)[number];

export const HISTORICAL_COLLECTIONS = ['runs', 'telemetry', 'milestones', ...STATE_LIST_COLLECTIONS] as const;
export type HistoricalCollection = (typeof HISTORICAL_COLLECTIONS)[number];

/** The keyed-document collections the store holds, from its health report (`docs:<name>` counts). */
export async function documentCollections(store: StateStore): Promise<string[]> {
  const { collections } = await store.health();
  return Object.keys(collections)
    .filter((name) => name.startsWith('docs:'))
    .map((name) => name.slice('docs:'.length))
    .sort();
}

/** Every run, oldest first, read page by page (cursor on seq) so memory stays bounded whatever the count. */
export async function* eachRun(store: StateStore, pageSize = 200): AsyncGenerator<RunRecord> {
  let afterSeq: number | undefined;
  for (;;) {
    const { items } = await store.listRuns({ includeInternal: true, order: 'oldest', limit: pageSize, afterSeq });
    yield* items;
    if (items.length < pageSize) return;
    afterSeq = items[items.length - 1]!.seq;
  }
}

/** Every record of an append collection, oldest first, page by page. */
export async function* eachAppended(store: StateStore, collection: 'telemetry' | 'milestones', pageSize = 500): AsyncGenerator<Record<string, unknown>> {
  const { total } = await store.listAppended(collection, { limit: 0 });
  // listAppended pages newest first: walk the pages from the oldest end.
  for (let end = total; end > 0; end -= pageSize) {
    const offset = Math.max(0, end - pageSize);
    const { items } = await store.listAppended(collection, { limit: end - offset, offset });
    yield* items.reverse();
  }
}

export function stateList(state: OrchestratorState, collection: StateListCollection): unknown[] {
  return state[collection];
}
