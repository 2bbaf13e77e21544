import type { StateStore } from '../store/types.js';
import { classificationLabels, getTaskType, publicCatalog } from './catalog.js';

/**
 * The catalog route's view: static classification labels from the catalog plus telemetry
 * overlays from run counts. Overlays never change the labels. A cancelled run counts in
 * `totalRuns` and `cancelledCount` but in neither rate: an operator's stop says nothing about
 * whether the lane works (docs/run-control.md, "Cancel"). Neither does a held run a decision
 * settled: a rejected (or expired) approval counts in `totalRuns` and `approvalRejectedCount`,
 * not as a failure, and a held run closed for its replay not as a success (its replay counts).
 */
/** What the type's module adds to its catalog facts: its contracts, the console's view, skills and model use. */
function moduleFacts(type: string) {
  const t = getTaskType(type);
  return {
    source: t?.source ?? 'builtin',
    payloadSchema: t?.payloadSchema ?? null,
    resultSchema: t?.resultSchema ?? null,
    resultView: t?.resultView ?? {},
    skills: t ? [...t.skills] : [],
    model: t ? { ...t.model } : null,
  };
}

export function createCatalogView(store: StateStore) {
  async function publicEntries() {
    const counts = await store.countRuns(false);
    const tasks = publicCatalog().map((entry) => {
      const byStatus = counts.byType[entry.type];
      const settled = counts.settledByApprovalByType[entry.type] ?? { rejected: 0, closedForReplay: 0 };
      const success = (byStatus?.success ?? 0) - settled.closedForReplay;
      const failed = (byStatus?.failed ?? 0) - settled.rejected;
      const finished = success + failed;
      const totalRuns = byStatus ? Object.values(byStatus).reduce((a, b) => a + b, 0) : 0;
      return {
        ...entry,
        ...moduleFacts(entry.type),
        classificationLabels: classificationLabels(entry),
        telemetryOverlay: {
          totalRuns,
          successRate: finished > 0 ? success / finished : null,
          failureRate: finished > 0 ? failed / finished : null,
          retryingCount: byStatus?.retrying ?? 0,
          cancelledCount: byStatus?.cancelled ?? 0,
          approvalRejectedCount: settled.rejected,
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
