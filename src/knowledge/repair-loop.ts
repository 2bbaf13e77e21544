import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { StateStore } from '../store/types.js';
import type { AdmissionOutcome, AdmissionRequest } from '../runtime/admission.js';
import { docChangeIntake } from './doc-change-intake.js';
import { lockedDocChanges } from './locked-doc-changes.js';
import { repairAdmission } from './repair-admission.js';
import { repairLocks } from './repair-locks.js';
import { repairReadModels } from './repair-posture.js';
import { repairReporting } from './repair-reporting.js';
import { repairStateDoc } from './repair-state.js';
import { repairVerification } from './repair-verification.js';
import type { KnowledgeService } from './service.js';

export { docSetKey, repairRunId } from './doc-set.js';
export { DOC_REPAIR_LOCK } from './repair-locks.js';
export type { RepairDecision } from './repair-admission.js';
export { MAX_REPAIR_RECORDS, REPAIR_STATE_COLLECTION, VERIFICATION_MODE, type RepairRecord } from './repair-state.js';

export interface RepairLoopDeps {
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  knowledge: KnowledgeService;
  /** The one admission path (runtime.admit); bound late, since the runtime is built after the loop. */
  admit: (request: AdmissionRequest) => Promise<AdmissionOutcome>;
  ownerId: string;
  logsDir: string;
  cooldownMs: number;
}

/**
 * The doc-change → drift-repair loop, a facade over its roles. Changed paths are buffered
 * (locked-doc-changes.ts, doc-change-intake.ts); when 25 are pending, the loop takes the
 * doc-repair lock (repair-locks.ts), rechecks inside it (threshold, an active repair, the doc
 * set's cooldown: repair-cooldown.ts) and admits a drift-repair under the doc set's stable run id
 * (repair-admission.ts, doc-set.ts). When the repair's run finishes, the loop records its
 * verification on the run and the repair with a milestone and refreshes the knowledge index
 * (repair-verification.ts, repair-reporting.ts). The repairs and cooldowns live in one store
 * document (repair-state.ts); the read side is repair-posture.ts.
 */
export function createRepairLoop(deps: RepairLoopDeps) {
  const { store, clock, logger, invalidator } = deps;
  const withLock = repairLocks(deps.coordination, deps.ownerId);
  const changes = lockedDocChanges({ logsDir: deps.logsDir, clock, withLock });
  const state = repairStateDoc({ store, clock });
  const reporting = repairReporting({ store, clock, invalidator });
  const refreshIndex = () => deps.knowledge.refresh();
  const considerRepair = repairAdmission({ store, clock, logger, invalidator, admit: deps.admit, cooldownMs: deps.cooldownMs, withLock, changes, state, reporting });
  const readModels = repairReadModels({ store, clock, changes, state });
  return {
    recordChanges: docChangeIntake({ changes, refreshIndex, considerRepair }),
    considerRepair,
    onRunFinished: repairVerification({ clock, logger, invalidator, refreshIndex, withLock, changes, state, reporting, considerRepair }),
    repairStats: readModels.repairStats,
    posture: readModels.posture,
    repairs: readModels.repairs,
  };
}

export type RepairLoop = ReturnType<typeof createRepairLoop>;
