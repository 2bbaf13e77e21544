import type { LimitBucket } from '../store/limit-buckets.js';
import { queueView } from '../runtime/queue-view.js';
import type { Registry } from 'prom-client';
import type { IncidentReadPort } from '../incidents/read-port.js';
import type { StateStore } from '../store/types.js';
import type { WorkerSpawner } from '../workers/spawn-worker.js';
import { observeRunWrites } from './observed-run-store.js';
import { observeSpawnFailures } from './observed-spawner.js';
import { RunMetrics, type RunMetricLabels } from './run-metrics.js';
import { registerSharedStateGauges, type SharedStateReading } from './shared-state-gauges.js';

/** Where the shared-state gauges read: the store and the incident ledger every instance shares. */
export interface SharedStateSources {
  store: Pick<StateStore, 'countRuns' | 'listRuns' | 'queueGroups'>;
  incidents: Pick<IncidentReadPort, 'rollup'>;
  now(): Date;
  /** Config `limits`: each bucket's running and waiting runs are gauged; absent: none. */
  limits?: readonly LimitBucket[];
}

/**
 * How the composition root measures runs (docs/metrics.md): the store and the spawner it hands
 * the runtime and the model gateway, observed; and the sources the gauges of shared state read.
 */
export interface ServiceRunMetrics {
  observeStore(store: StateStore): StateStore;
  observeSpawner(spawner: WorkerSpawner): WorkerSpawner;
  readSharedState(sources: SharedStateSources): void;
  /** The task types known now (after a reload): those new to the `type` label get their own value (docs/metrics.md). */
  knowTypes(types: readonly string[]): void;
}

/** For a service built without metrics (tests composing parts of it): everything as it is. */
export const UNMEASURED: ServiceRunMetrics = {
  observeStore: (store) => store,
  observeSpawner: (spawner) => spawner,
  readSharedState: () => undefined,
  knowTypes: () => undefined,
};

/** One bounded reading of shared state: one count of runs, one held run, the incident rollup. */
export async function readSharedState(sources: SharedStateSources): Promise<SharedStateReading> {
  const limited = (sources.limits?.length ?? 0) > 0;
  const [counts, oldestHeld, incidents, queue] = await Promise.all([
    sources.store.countRuns(true),
    sources.store.listRuns({ queueState: 'held', includeInternal: true, order: 'oldest', limit: 1 }),
    sources.incidents.rollup(),
    limited ? queueView(sources.store, { limits: [...(sources.limits ?? [])] }, sources.now()) : null,
  ]);
  const oldest = oldestHeld.items[0];
  return {
    executingByType: Object.fromEntries(Object.entries(counts.byType).map(([type, byStatus]) => [type, byStatus.running ?? 0])),
    approvalsPending: oldestHeld.total,
    oldestApprovalRequestedAt: oldest ? (oldest.approval.requestedAt ?? oldest.createdAt) : null,
    incidentsOpenBySeverity: { ...incidents.bySeverity },
    buckets: (queue?.buckets ?? []).map((bucket) => ({
      name: bucket.name,
      running: bucket.running,
      waiting: bucket.waiting,
      oldestWaitSeconds: Math.max(0, ...bucket.keys.map((key) => key.oldestWaitSeconds ?? 0)),
    })),
  };
}

/** Registers the run metrics and the gauges of shared state on `registry`. */
export function createServiceRunMetrics(registry: Registry, labels: RunMetricLabels): ServiceRunMetrics {
  const runs = new RunMetrics(registry, labels);
  const gauges = registerSharedStateGauges(registry, labels.types);
  return {
    observeStore: (store) => observeRunWrites(store, runs),
    observeSpawner: (spawner) => observeSpawnFailures(spawner, (type) => runs.spawnFailed(type)),
    readSharedState: (sources) => gauges.readFrom({ read: () => readSharedState(sources), now: sources.now }),
    knowTypes: (types) => {
      runs.knowTypes(types);
      gauges.knowTypes(types);
    },
  };
}
