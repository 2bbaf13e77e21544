import type { CatalogEntry } from '../runtime/catalog.js';
import type { LaneDefinition } from '../runtime/lanes.js';
import { CONTROL_PLANE_PAYLOAD_KEY, type ControlPlaneSnapshot } from '../worker-sdk/control-plane.js';

/**
 * The lanes that judge the orchestrator itself (the catalog marks them `readsControlPlane`) get
 * a bounded snapshot of it with their payload: a worker cannot open the state store.
 */
export function controlPlaneLanes(catalog: readonly CatalogEntry[], snapshot: () => Promise<ControlPlaneSnapshot>): LaneDefinition[] {
  return catalog
    .filter((entry) => entry.readsControlPlane)
    .map((entry) => ({ type: entry.type, workerInput: async () => ({ [CONTROL_PLANE_PAYLOAD_KEY]: await snapshot() }) }));
}
