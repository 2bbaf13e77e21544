import type { StateStore } from '../store/types.js';
import { classificationLabels, publicCatalog } from './catalog.js';
import { getPayloadSchema } from './payload-schemas.js';

/**
 * The catalog route's view: static classification labels from the catalog plus telemetry
 * overlays from run counts. Overlays never change the labels. A cancelled run counts in
 * `totalRuns` and `cancelledCount` but in neither rate: an operator's stop says nothing about
 * whether the lane works (docs/run-control.md, "Cancel").
 */
export function createCatalogView(store: StateStore) {
  async function publicEntries() {
    const counts = await store.countRuns(false);
    const tasks = publicCatalog().map((entry) => {
      const byStatus = counts.byType[entry.type];
      const success = byStatus?.success ?? 0;
      const failed = byStatus?.failed ?? 0;
      const finished = success + failed;
      const totalRuns = byStatus ? Object.values(byStatus).reduce((a, b) => a + b, 0) : 0;
      return {
        ...entry,
        payloadSchema: getPayloadSchema(entry.type) ?? null,
        classificationLabels: classificationLabels(entry),
        telemetryOverlay: {
          totalRuns,
          successRate: finished > 0 ? success / finished : null,
          failureRate: finished > 0 ? failed / finished : null,
          retryingCount: byStatus?.retrying ?? 0,
          cancelledCount: byStatus?.cancelled ?? 0,
          recentSuccessCount: success,
          recentFailureCount: failed,
        },
      };
    });
    return { count: tasks.length, tasks };
  }
  return { publicEntries };
}

export type CatalogView = ReturnType<typeof createCatalogView>;
