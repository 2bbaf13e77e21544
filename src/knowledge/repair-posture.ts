/**
 * The repair loop as the read surfaces report it: the kept repair records, the counts of the
 * extended health's `repairs` (active ones counted from the drift-repair runs themselves), and
 * the posture the knowledge summary and query show (idle, buffering, repairing or cooldown).
 */

import type { Clock } from '../clock.js';
import type { StateStore } from '../store/types.js';
import { DOC_CHANGE_THRESHOLD } from './doc-change-buffer.js';
import type { LockedDocChanges } from './locked-doc-changes.js';
import { latestCooldown } from './repair-cooldown.js';
import type { RepairRecord, RepairStateDoc } from './repair-state.js';
import { driftRepairType } from '../lanes/drift-repair/definition.js';

/** The repair loop's posture as the knowledge surfaces report it. */
export interface RepairPosture {
  status: 'idle' | 'buffering' | 'repairing' | 'cooldown';
  threshold: number;
  pendingPaths: number;
  activeRepairs: number;
  lastRepair: { repairId: string; status: string; at: string } | null;
  cooldownUntil: string | null;
}

export function repairReadModels(deps: { store: StateStore; clock: Clock; changes: LockedDocChanges; state: RepairStateDoc }) {
  const { store, clock, changes } = deps;

  async function repairs(): Promise<RepairRecord[]> {
    return (await deps.state.read()).repairs;
  }

  /** Counts for `repairs` of the extended health. Active ones come from the runs themselves. */
  async function repairStats(): Promise<{ activeCount: number; verifiedCount: number; failedCount: number }> {
    const [all, counts] = await Promise.all([repairs(), store.countRuns(true)]);
    const byStatus = counts.byType[driftRepairType.type];
    return {
      activeCount: byStatus ? byStatus.pending + byStatus.running + byStatus.retrying : 0,
      verifiedCount: all.filter((r) => r.status === 'verified').length,
      failedCount: all.filter((r) => r.status === 'failed').length,
    };
  }

  async function posture(): Promise<RepairPosture> {
    const now = clock.now();
    const [buffer, stats, state] = await Promise.all([changes.read(), repairStats(), deps.state.read()]);
    const last = state.repairs[0] ?? null;
    const cooling = latestCooldown(state.cooldowns, now);
    return {
      status: stats.activeCount > 0 ? 'repairing' : buffer.pending.length > 0 ? 'buffering' : cooling ? 'cooldown' : 'idle',
      threshold: DOC_CHANGE_THRESHOLD,
      pendingPaths: buffer.pending.length,
      activeRepairs: stats.activeCount,
      lastRepair: last ? { repairId: last.repairId, status: last.status, at: last.updatedAt } : null,
      cooldownUntil: cooling,
    };
  }

  return { repairs, repairStats, posture };
}
