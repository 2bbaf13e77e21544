/**
 * The admission of a drift-repair, decided under the doc-repair lock: recheck the threshold, an
 * active repair and the doc set's cooldown, then admit `drift-repair` through the one admission
 * path under the doc set's stable run id. Only an admission that created the run records a
 * repair (record, cooldown, run field, milestone); a centrally suppressed duplicate records
 * nothing but drains the paths its repair already covers.
 */

import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import type { AdmissionOutcome, AdmissionRequest } from '../runtime/admission.js';
import { DOC_CHANGE_THRESHOLD } from './doc-change-buffer.js';
import { pendingDocSet, repairRunId } from './doc-set.js';
import type { LockedDocChanges } from './locked-doc-changes.js';
import { cooldownOf, withCooldown } from './repair-cooldown.js';
import { DOC_REPAIR_LOCK, type WithRepairLock } from './repair-locks.js';
import type { RepairReporting } from './repair-reporting.js';
import { isActiveRepair, upsertRepair, VERIFICATION_MODE, type RepairRecord, type RepairState, type RepairStateDoc } from './repair-state.js';
import { driftRepairType } from '../lanes/drift-repair/definition.js';

export type RepairDecision =
  | { decision: 'below-threshold'; pending: number }
  | { decision: 'locked' }
  | { decision: 'repair-active'; repairId: string }
  | { decision: 'cooldown'; docSet: string; until: string }
  | { decision: 'duplicate-suppressed'; runId: string; reason: string }
  | { decision: 'admitted'; repairId: string; docSet: string; paths: number };

export interface RepairAdmissionDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  admit: (request: AdmissionRequest) => Promise<AdmissionOutcome>;
  cooldownMs: number;
  withLock: WithRepairLock;
  changes: LockedDocChanges;
  state: RepairStateDoc;
  reporting: RepairReporting;
}

/** Takes the doc-repair lock and decides whether the buffered drift admits a repair. */
export type ConsiderRepair = () => Promise<RepairDecision>;

export function repairAdmission(deps: RepairAdmissionDeps): ConsiderRepair {
  const { store, clock, logger, changes, reporting } = deps;

  async function activeRepair(state: RepairState): Promise<RepairRecord | null> {
    for (const repair of state.repairs) {
      if (!isActiveRepair(repair.status)) continue;
      // A record whose run has ended (a crash between the two writes) is not active any more.
      const run = await store.getRun(repair.runId);
      if (run && (run.status === 'pending' || run.status === 'running' || run.status === 'retrying')) return repair;
    }
    return null;
  }

  /** The admission decision, taken only while holding the doc-repair lock. */
  async function decideLocked(): Promise<RepairDecision> {
    const now = clock.now();
    const buffer = await changes.read();
    if (buffer.pending.length < DOC_CHANGE_THRESHOLD) return { decision: 'below-threshold', pending: buffer.pending.length };
    const state = await deps.state.read();
    const active = await activeRepair(state);
    if (active) return { decision: 'repair-active', repairId: active.repairId };

    const { paths, docSet } = pendingDocSet(buffer.pending);
    const until = cooldownOf(state.cooldowns, docSet, now);
    if (until) return { decision: 'cooldown', docSet, until };

    const runId = repairRunId(docSet, now, deps.cooldownMs);
    const outcome = await deps.admit({
      type: driftRepairType.type,
      payload: { requestedBy: 'doc-change', paths, notes: `${paths.length} doc(s) changed (doc set ${docSet})` },
      source: 'system',
      requestedBy: 'doc-watcher',
      forceRunId: runId,
    });
    if (outcome.kind !== 'admitted') {
      // The doc set already has its repair in this window: the paths are covered by it.
      await changes.drain(paths, now);
      return { decision: 'duplicate-suppressed', runId: outcome.run.runId, reason: outcome.kind === 'duplicate' ? outcome.reason : outcome.kind };
    }

    const repair: RepairRecord = {
      repairId: runId,
      runId,
      classification: 'doc-drift',
      status: 'queued',
      verificationMode: VERIFICATION_MODE,
      verificationSummary: null,
      docSet,
      paths,
      admittedAt: now.toISOString(),
      updatedAt: now.toISOString(),
      finishedAt: null,
      packVersion: null,
    };
    await deps.state.write((current) => ({ ...upsertRepair(current, repair), cooldowns: withCooldown(current.cooldowns, docSet, now, deps.cooldownMs) }));
    await reporting.onRun(repair, 'repair-admitted', `doc set ${docSet}: ${paths.length} path(s)`);
    await changes.drain(paths, now);
    await reporting.milestone(repair, 'queued', `drift repair queued for ${paths.length} changed doc(s)`);
    await deps.invalidator.invalidate([CacheTags.knowledge]);
    logger.info({ repairId: repair.repairId, docSet, paths: paths.length }, 'drift repair admitted');
    return { decision: 'admitted', repairId: repair.repairId, docSet, paths: paths.length };
  }

  /**
   * Takes the doc-repair lock (waiting a little: the holder may be recording a finished repair)
   * and decides. Still held after that: another caller is deciding, and the recheck inside the
   * lock makes its decision cover these paths too.
   */
  return async () => (await deps.withLock(DOC_REPAIR_LOCK, 50, decideLocked)) ?? { decision: 'locked' };
}
