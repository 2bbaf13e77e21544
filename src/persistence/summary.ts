import type { CoordinationStatus } from '../coordination/types.js';
import type { StateStore } from '../store/types.js';
import { STATE_LIST_COLLECTIONS, stateList } from './collections.js';

export interface PersistenceSummary {
  status: 'healthy' | 'degraded';
  activeStore: StateStore['kind'] | 'docdb';
  store: { target: string; status: 'ok' | 'degraded' | 'down'; detail: string; shared: boolean };
  collections: Record<string, number>;
  runs: { total: number; byStatus: Record<string, number>; ready: number; held: number; internal: number };
  state: { lastStartedAt: string | null; tasksProcessed: number; lists: Record<string, number>; hasNotes: boolean };
  coordination: CoordinationStatus;
  checkedAt: string;
}

/** The document target (`docdb:<key>`) is served by the PostgreSQL driver but reported as its own kind. */
export function activeStoreOf(kind: StateStore['kind'], target: string): StateStore['kind'] | 'docdb' {
  return target.startsWith('docdb:') ? 'docdb' : kind;
}

/** What the store holds, by collection and run status, and how the coordination store is doing. */
export async function persistenceSummary(store: StateStore, coordination: () => Promise<CoordinationStatus>, now: Date): Promise<PersistenceSummary> {
  const [health, all, visible, state, coord] = await Promise.all([
    store.health(),
    store.countRuns(true),
    store.countRuns(false),
    store.getState(),
    coordination(),
  ]);
  return {
    status: health.status === 'ok' && coord.status === 'ok' ? 'healthy' : 'degraded',
    activeStore: activeStoreOf(store.kind, health.target),
    store: { target: health.target, status: health.status, detail: health.detail, shared: !store.exclusive },
    collections: health.collections,
    runs: { total: all.total, byStatus: all.byStatus, ready: all.ready, held: all.held, internal: all.total - visible.total },
    state: {
      lastStartedAt: state.lastStartedAt,
      tasksProcessed: state.tasksProcessed,
      lists: Object.fromEntries(STATE_LIST_COLLECTIONS.map((name) => [name, stateList(state, name).length])),
      hasNotes: state.notes !== undefined,
    },
    coordination: coord,
    checkedAt: now.toISOString(),
  };
}
