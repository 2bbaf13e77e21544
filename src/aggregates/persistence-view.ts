import type { CoordinationStatus } from '../coordination/types.js';
import type { StoreHealth } from '../store/types.js';

/** The state store as health names it: `file`, `sqlite`, `docdb` or `postgres`. */
export function persistenceMode(kind: string, target: string): string {
  if (target.startsWith('docdb:')) return 'docdb';
  if (target.startsWith('postgres')) return 'postgres';
  if (kind === 'sql') return 'sqlite';
  return kind;
}

export interface PersistenceView {
  status: 'healthy' | 'degraded' | 'down';
  database: { mode: string; target: string; status: StoreHealth['status']; detail: string };
  collections: Record<string, number>;
  coordination: {
    status: CoordinationStatus['status'];
    store: CoordinationStatus['store'];
    redisConfigured: boolean;
    redisReachable: boolean;
    detail: string;
  };
}

/** `dependencies.persistence` of extended health, `persistence` of the dashboard. */
export function persistenceView(storeKind: string, health: StoreHealth, coordination: CoordinationStatus): PersistenceView {
  const storeStatus = health.status === 'ok' ? 'healthy' : health.status;
  const status = storeStatus === 'healthy' && coordination.status === 'degraded' ? 'degraded' : storeStatus;
  return {
    status,
    database: { mode: persistenceMode(storeKind, health.target), target: health.target, status: health.status, detail: health.detail },
    collections: health.collections,
    coordination: coordinationView(coordination),
  };
}

/** The coordination's status as the persistence answers show it (these fields, in this order). */
export function coordinationView(coordination: CoordinationStatus): PersistenceView['coordination'] {
  return {
    status: coordination.status,
    store: coordination.store,
    redisConfigured: coordination.redisConfigured,
    redisReachable: coordination.redisReachable,
    detail: coordination.detail,
  };
}
