/**
 * The verification outcome of a finished drift-repair attempt (any source, operator-requested
 * included): reads whether the repair's knowledge pack verified, records the repair (under the
 * doc-repair lock) and shows it on the run and as a milestone, refreshes the index the repair's
 * pack was built from, and takes up drift that piled up while the repair ran.
 */

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict } from '../domain/errors.js';
import type { RunRecord, RunRepair } from '../domain/run-record.js';
import { DOC_CHANGE_THRESHOLD } from './doc-change-buffer.js';
import { docSetKey } from './doc-set.js';
import type { LockedDocChanges } from './locked-doc-changes.js';
import type { ConsiderRepair } from './repair-admission.js';
import { DOC_REPAIR_LOCK, type WithRepairLock } from './repair-locks.js';
import type { RepairReporting } from './repair-reporting.js';
import { isActiveRepair, upsertRepair, VERIFICATION_MODE, type RepairRecord, type RepairStateDoc } from './repair-state.js';
import { driftRepairType } from '../lanes/drift-repair/definition.js';

export interface RepairVerificationDeps {
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  /** Brings the knowledge index up to the docs as they are now. */
  refreshIndex: () => Promise<unknown>;
  withLock: WithRepairLock;
  changes: LockedDocChanges;
  state: RepairStateDoc;
  reporting: RepairReporting;
  considerRepair: ConsiderRepair;
}

const objectOr = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {});

/** The repair status a finished (or retrying) drift-repair run stands for. */
function repairStatusOf(run: RunRecord, verified: boolean): RunRepair['status'] {
  // A cancelled repair did not verify: it ends `failed` like any repair that stopped short.
  const stopped = run.status === 'success' || run.status === 'failed' || run.status === 'cancelled';
  return run.status === 'retrying' ? 'retrying' : verified ? 'verified' : stopped ? 'failed' : 'running';
}

/** Records a finished drift-repair attempt on its run and its repair, with a milestone. */
export function repairVerification(deps: RepairVerificationDeps): (run: RunRecord) => Promise<void> {
  const { clock, logger, reporting } = deps;
  return async (run) => {
    if (run.type !== driftRepairType.type) return;
    const now = clock.now();
    const result = objectOr(run.result);
    const verification = objectOr(result.verification);
    const pack = objectOr(result.knowledgePack);
    const status = repairStatusOf(run, run.status === 'success' && verification.verified === true);
    const paths = Array.isArray(run.payload.paths) ? (run.payload.paths as unknown[]).filter((p): p is string => typeof p === 'string') : [];
    const summary =
      typeof verification.summary === 'string' ? verification.summary : run.error ? `repair did not verify: ${run.error}` : 'repair finished without verification evidence';
    const recorded = await deps.withLock(DOC_REPAIR_LOCK, 500, async () => {
      let repair: RepairRecord | null = null;
      await deps.state.write((state) => {
        const existing = state.repairs.find((r) => r.repairId === run.runId) ?? null;
        repair = {
          ...(existing ?? {
            repairId: run.runId,
            runId: run.runId,
            classification: run.source === 'system' ? 'doc-drift' : 'operator-requested',
            docSet: docSetKey(paths),
            paths,
            admittedAt: run.createdAt,
            verificationMode: VERIFICATION_MODE,
          }),
          status,
          verificationSummary: summary,
          updatedAt: now.toISOString(),
          finishedAt: isActiveRepair(status) ? null : now.toISOString(),
          packVersion: typeof pack.version === 'number' ? pack.version : (existing?.packVersion ?? null),
        } as RepairRecord;
        return upsertRepair(state, repair);
      });
      return repair as RepairRecord | null;
    });
    if (!recorded) throw conflict(`doc-repair lock not obtained; repair ${run.runId} outcome not recorded`);
    const repair = recorded;
    await reporting.onRun(repair, `repair-${status}`, summary);
    if (!isActiveRepair(status)) {
      await reporting.milestone(
        repair,
        status === 'verified' ? 'completed' : 'failed',
        status === 'verified' ? `drift repair verified: knowledge pack v${repair.packVersion ?? '?'} written and checked` : `drift repair failed: ${summary}`,
      );
    }
    // The repair regenerated the pack from the docs as they are now: the index follows them.
    await deps.refreshIndex();
    await deps.invalidator.invalidate([CacheTags.knowledge]);
    // Drift that piled up while this repair ran (it got `repair-active`) is taken up now.
    if (!isActiveRepair(status) && (await deps.changes.read()).pending.length >= DOC_CHANGE_THRESHOLD) {
      const next = await deps.considerRepair();
      logger.info({ decision: next.decision }, 'buffered drift reconsidered after a repair finished');
    }
  };
}
