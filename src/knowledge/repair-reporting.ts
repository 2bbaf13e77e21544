/**
 * How a repair shows outside the loop's own state: on its run (the `repair` field and a
 * `repair-*` event, with the run's cache tags invalidated) and as a `drift-repair` milestone in
 * the milestones collection, under the field names the public proof feed publishes.
 */

import type { Clock } from '../clock.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { RunRepair } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags } from '../runtime/admission.js';
import { withEvent } from '../runtime/run-transitions.js';
import type { RepairRecord } from './repair-state.js';

const MILESTONE_RETENTION = 500;

export interface RepairReporting {
  /** Writes the repair on its run with event `eventName`. */
  onRun(record: RepairRecord, eventName: string, detail: string): Promise<void>;
  /** Appends the repair's milestone. */
  milestone(record: RepairRecord, status: 'queued' | 'completed' | 'failed', summary: string): Promise<void>;
}

/** The repair as a run carries it. */
function runRepairOf(record: RepairRecord): RunRepair {
  return {
    repairId: record.repairId,
    classification: record.classification,
    status: record.status,
    verificationMode: record.verificationMode,
    verificationSummary: record.verificationSummary,
  };
}

export function repairReporting(deps: { store: StateStore; clock: Clock; invalidator: CacheInvalidator }): RepairReporting {
  const { store, clock } = deps;
  return {
    async onRun(record, eventName, detail) {
      const now = clock.now();
      const repair = runRepairOf(record);
      const written = await store.mutateRun(record.runId, (run) => (run ? withEvent({ ...run, repair }, now, { kind: 'repair', name: eventName, detail }) : null));
      if (written.changed && written.after) await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
    },
    async milestone(record, status, summary) {
      await store.append(
        'milestones',
        {
          milestoneId: `drift-repair:${record.repairId}:${status}`,
          kind: 'drift-repair',
          status,
          at: clock.now().toISOString(),
          runId: record.runId,
          repairId: record.repairId,
          classification: record.classification,
          docCount: record.paths.length,
          packVersion: record.packVersion,
          // The names the public proof feed publishes (src/proof/public-fields.ts allowlist).
          filesAudited: record.paths.length,
          knowledgePackVersion: record.packVersion,
          verified: record.status === 'verified',
          summary,
        },
        MILESTONE_RETENTION,
      );
    },
  };
}
