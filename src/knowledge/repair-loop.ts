import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { conflict } from '../domain/errors.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import type { StateStore } from '../store/types.js';
import { runWriteTags, type AdmissionOutcome, type AdmissionRequest } from '../tasks/admission.js';
import { withEvent } from '../tasks/run-transitions.js';
import type { RunRecord, RunRepair } from '../domain/run-record.js';
import { appendDocChanges, drainDocChanges, readDocChangeBuffer, DOC_CHANGE_THRESHOLD, type DocChangeBuffer } from './doc-change-buffer.js';
import type { KnowledgeService, RepairPosture } from './service.js';

/**
 * The repair loop's state: one store document (`knowledge-repair-loop/state`) holding the newest
 * repairs and the live cooldowns, bounded, and written only under the doc-repair lock.
 */
export const REPAIR_STATE_COLLECTION = 'knowledge-repair-loop';
const REPAIR_STATE_ID = 'state';
/** Repair records kept (newest first); older ones are dropped. */
export const MAX_REPAIR_RECORDS = 200;
export const DOC_REPAIR_LOCK = 'knowledge:doc-repair';
const BUFFER_LOCK = 'knowledge:doc-change-buffer';
const LOCK_TTL_MS = 30_000;
/** At most this many paths go to one repair (the drift-repair payload's bound). */
const MAX_REPAIR_PATHS = 500;
const MILESTONE_RETENTION = 500;
export const VERIFICATION_MODE = 'pack-hash-and-source-hashes';

/** The bounded repair record kept in the store (one per repair, keyed by repairId = run id). */
export interface RepairRecord extends RunRepair {
  runId: string;
  docSet: string;
  paths: string[];
  admittedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  packVersion: number | null;
  [key: string]: unknown;
}

export type RepairDecision =
  | { decision: 'below-threshold'; pending: number }
  | { decision: 'locked' }
  | { decision: 'repair-active'; repairId: string }
  | { decision: 'cooldown'; docSet: string; until: string }
  | { decision: 'duplicate-suppressed'; runId: string; reason: string }
  | { decision: 'admitted'; repairId: string; docSet: string; paths: number };

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

/** Identity of a doc set: the sha256 of its sorted paths (first 16 hex). */
export function docSetKey(paths: string[]): string {
  return createHash('sha256').update([...paths].sort().join('\n')).digest('hex').slice(0, 16);
}

/**
 * The deterministic run id of a repair of `docSet`: the same doc set within one cooldown window
 * always maps to the same id, so admission suppresses a second repair centrally (in the store),
 * whichever process or instance asks.
 */
export function repairRunId(docSet: string, now: Date, cooldownMs: number): string {
  return `${SERVICE_RUN_ID_PREFIXES.driftRepair}${docSet}:${Math.floor(now.getTime() / Math.max(1, cooldownMs))}`;
}

interface RepairState {
  repairs: RepairRecord[];
  /** Doc set key → end of its cooldown (ISO). */
  cooldowns: Record<string, string>;
}

function asRepairState(doc: Record<string, unknown> | null): RepairState {
  const repairs = Array.isArray(doc?.repairs) ? (doc.repairs as RepairRecord[]).filter((r) => typeof r?.repairId === 'string') : [];
  const cooldowns = typeof doc?.cooldowns === 'object' && doc.cooldowns !== null ? (doc.cooldowns as Record<string, string>) : {};
  return { repairs, cooldowns };
}

function isActive(status: RunRepair['status']): boolean {
  return status === 'queued' || status === 'running' || status === 'retrying';
}

/**
 * The doc-change → drift-repair loop. Changed paths are buffered; when 25 are pending, the
 * loop takes the doc-repair lock (Coordination), rechecks inside it (threshold, an active
 * repair, the doc set's cooldown), then admits a drift-repair under a stable run id. Only an
 * admission that created the run records a repair; a centrally suppressed duplicate records
 * nothing. When the repair's run finishes, the loop records the outcome on the run and the
 * repair, emits a milestone and refreshes the knowledge index.
 */
export function createRepairLoop(deps: RepairLoopDeps) {
  const { store, coordination, clock, logger } = deps;
  const bufferConfig = { logsDir: deps.logsDir };

  async function withLock<T>(name: string, attempts: number, work: () => Promise<T>): Promise<T | null> {
    for (let i = 0; i < attempts; i += 1) {
      if (await coordination.acquireLock(name, deps.ownerId, LOCK_TTL_MS)) {
        try {
          return await work();
        } finally {
          await coordination.releaseLock(name, deps.ownerId);
        }
      }
      await new Promise((r) => setTimeout(r, 5 + Math.floor(Math.random() * 20)));
    }
    return null;
  }

  // Buffer updates of this process queue here first, so they contend for the shared lock only
  // with other processes.
  let bufferChain: Promise<unknown> = Promise.resolve();
  function appendUnderLock(paths: string[]): Promise<DocChangeBuffer | null> {
    const next = bufferChain.then(() => withLock(BUFFER_LOCK, 500, () => appendDocChanges(bufferConfig, paths, clock.now())));
    bufferChain = next.catch(() => undefined);
    return next;
  }

  async function readState(): Promise<RepairState> {
    return asRepairState(await store.getDoc(REPAIR_STATE_COLLECTION, REPAIR_STATE_ID));
  }

  /** Call only while holding the doc-repair lock: the document is read, changed and written whole. */
  async function writeState(change: (state: RepairState) => RepairState): Promise<RepairState> {
    const now = clock.now().getTime();
    const next = change(await readState());
    const cooldowns = Object.fromEntries(Object.entries(next.cooldowns).filter(([, until]) => new Date(until).getTime() > now));
    const bounded = { repairs: next.repairs.slice(0, MAX_REPAIR_RECORDS), cooldowns };
    await store.putDoc(REPAIR_STATE_COLLECTION, REPAIR_STATE_ID, bounded as unknown as Record<string, unknown>);
    return bounded;
  }

  function upsert(state: RepairState, repair: RepairRecord): RepairState {
    return { ...state, repairs: [repair, ...state.repairs.filter((r) => r.repairId !== repair.repairId)] };
  }

  async function activeRepair(state: RepairState): Promise<RepairRecord | null> {
    for (const repair of state.repairs) {
      if (!isActive(repair.status)) continue;
      // A record whose run has ended (a crash between the two writes) is not active any more.
      const run = await store.getRun(repair.runId);
      if (run && (run.status === 'pending' || run.status === 'running' || run.status === 'retrying')) return repair;
    }
    return null;
  }

  async function emitMilestone(repair: RepairRecord, status: 'queued' | 'completed' | 'failed', summary: string): Promise<void> {
    await store.append(
      'milestones',
      {
        milestoneId: `drift-repair:${repair.repairId}:${status}`,
        kind: 'drift-repair',
        status,
        at: clock.now().toISOString(),
        runId: repair.runId,
        repairId: repair.repairId,
        classification: repair.classification,
        docCount: repair.paths.length,
        packVersion: repair.packVersion,
        // The names the public proof feed publishes (src/proof/public-fields.ts allowlist).
        filesAudited: repair.paths.length,
        knowledgePackVersion: repair.packVersion,
        verified: repair.status === 'verified',
        summary,
      },
      MILESTONE_RETENTION,
    );
  }

  async function recordOnRun(runId: string, repair: RunRepair, eventName: string, detail: string): Promise<void> {
    const now = clock.now();
    const written = await store.mutateRun(runId, (run) => (run ? withEvent({ ...run, repair }, now, { kind: 'repair', name: eventName, detail }) : null));
    if (written.changed && written.after) await deps.invalidator.invalidate(runWriteTags(written.after, written.before?.status));
  }

  /** The admission decision, taken only while holding the doc-repair lock. */
  async function decideLocked(): Promise<RepairDecision> {
    const now = clock.now();
    const buffer = await readDocChangeBuffer(bufferConfig);
    if (buffer.pending.length < DOC_CHANGE_THRESHOLD) return { decision: 'below-threshold', pending: buffer.pending.length };
    const state = await readState();
    const active = await activeRepair(state);
    if (active) return { decision: 'repair-active', repairId: active.repairId };

    const paths = buffer.pending.slice(0, MAX_REPAIR_PATHS).sort();
    const docSet = docSetKey(paths);
    const until = state.cooldowns[docSet];
    if (until && new Date(until).getTime() > now.getTime()) return { decision: 'cooldown', docSet, until };

    const runId = repairRunId(docSet, now, deps.cooldownMs);
    const outcome = await deps.admit({
      type: 'drift-repair',
      payload: { requestedBy: 'doc-change', paths, notes: `${paths.length} doc(s) changed (doc set ${docSet})` },
      source: 'system',
      requestedBy: 'doc-watcher',
      forceRunId: runId,
    });
    if (outcome.kind !== 'admitted') {
      // The doc set already has its repair in this window: the paths are covered by it.
      await drainDocChanges(bufferConfig, paths, now);
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
    const cooldownUntil = new Date(now.getTime() + deps.cooldownMs).toISOString();
    await writeState((current) => ({ ...upsert(current, repair), cooldowns: { ...current.cooldowns, [docSet]: cooldownUntil } }));
    await recordOnRun(runId, runRepairOf(repair), 'repair-admitted', `doc set ${docSet}: ${paths.length} path(s)`);
    await drainDocChanges(bufferConfig, paths, now);
    await emitMilestone(repair, 'queued', `drift repair queued for ${paths.length} changed doc(s)`);
    await deps.invalidator.invalidate([CacheTags.knowledge]);
    logger.info({ repairId: repair.repairId, docSet, paths: paths.length }, 'drift repair admitted');
    return { decision: 'admitted', repairId: repair.repairId, docSet, paths: paths.length };
  }

  /**
   * Takes the doc-repair lock (waiting a little: the holder may be recording a finished repair)
   * and decides. Still held after that: another caller is deciding, and the recheck inside the
   * lock makes its decision cover these paths too.
   */
  async function considerRepair(): Promise<RepairDecision> {
    const decided = await withLock(DOC_REPAIR_LOCK, 50, decideLocked);
    return decided ?? { decision: 'locked' };
  }

  /**
   * Buffers changed doc paths (under the buffer lock, so concurrent doc-change runs in any
   * process lose nothing), refreshes the index, and considers a repair at the threshold.
   */
  async function recordChanges(paths: string[]): Promise<{ buffer: DocChangeBuffer; decision: RepairDecision }> {
    const buffer = await appendUnderLock(paths);
    if (!buffer) throw conflict('doc-change buffer lock not obtained; the paths stay unrecorded and the change can be replayed');
    await deps.knowledge.refresh();
    const decision =
      buffer.pending.length >= DOC_CHANGE_THRESHOLD ? await considerRepair() : ({ decision: 'below-threshold', pending: buffer.pending.length } as const);
    return { buffer, decision };
  }

  /** Records a finished drift-repair attempt on its run and its repair, with a milestone. */
  async function onRunFinished(run: RunRecord): Promise<void> {
    if (run.type !== 'drift-repair') return;
    const now = clock.now();
    const result = (typeof run.result === 'object' && run.result !== null ? run.result : {}) as Record<string, unknown>;
    const verification = (typeof result.verification === 'object' && result.verification !== null ? result.verification : {}) as Record<string, unknown>;
    const pack = (typeof result.knowledgePack === 'object' && result.knowledgePack !== null ? result.knowledgePack : {}) as Record<string, unknown>;
    const verified = run.status === 'success' && verification.verified === true;
    // A cancelled repair did not verify: it ends `failed` like any repair that stopped short.
    const stopped = run.status === 'success' || run.status === 'failed' || run.status === 'cancelled';
    const status: RunRepair['status'] = run.status === 'retrying' ? 'retrying' : verified ? 'verified' : stopped ? 'failed' : 'running';
    const paths = Array.isArray(run.payload.paths) ? (run.payload.paths as unknown[]).filter((p): p is string => typeof p === 'string') : [];
    const summary =
      typeof verification.summary === 'string' ? verification.summary : run.error ? `repair did not verify: ${run.error}` : 'repair finished without verification evidence';
    const recorded = await withLock(DOC_REPAIR_LOCK, 500, async () => {
      let repair: RepairRecord | null = null;
      await writeState((state) => {
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
          finishedAt: isActive(status) ? null : now.toISOString(),
          packVersion: typeof pack.version === 'number' ? pack.version : (existing?.packVersion ?? null),
        } as RepairRecord;
        return upsert(state, repair);
      });
      return repair as RepairRecord | null;
    });
    if (!recorded) throw conflict(`doc-repair lock not obtained; repair ${run.runId} outcome not recorded`);
    const repair = recorded;
    await recordOnRun(run.runId, runRepairOf(repair), `repair-${status}`, summary);
    if (!isActive(status)) {
      await emitMilestone(
        repair,
        status === 'verified' ? 'completed' : 'failed',
        status === 'verified' ? `drift repair verified: knowledge pack v${repair.packVersion ?? '?'} written and checked` : `drift repair failed: ${summary}`,
      );
    }
    // The repair regenerated the pack from the docs as they are now: the index follows them.
    await deps.knowledge.refresh();
    await deps.invalidator.invalidate([CacheTags.knowledge]);
    // Drift that piled up while this repair ran (it got `repair-active`) is taken up now.
    if (!isActive(status) && (await readDocChangeBuffer(bufferConfig)).pending.length >= DOC_CHANGE_THRESHOLD) {
      const next = await considerRepair();
      logger.info({ decision: next.decision }, 'buffered drift reconsidered after a repair finished');
    }
  }

  async function repairs(): Promise<RepairRecord[]> {
    return (await readState()).repairs;
  }

  /** Counts for `repairs` of the extended health. Active ones come from the runs themselves. */
  async function repairStats(): Promise<{ activeCount: number; verifiedCount: number; failedCount: number }> {
    const [all, counts] = await Promise.all([repairs(), store.countRuns(true)]);
    const byStatus = counts.byType['drift-repair'];
    return {
      activeCount: byStatus ? byStatus.pending + byStatus.running + byStatus.retrying : 0,
      verifiedCount: all.filter((r) => r.status === 'verified').length,
      failedCount: all.filter((r) => r.status === 'failed').length,
    };
  }

  async function posture(): Promise<RepairPosture> {
    const now = clock.now();
    const [buffer, stats, state] = await Promise.all([readDocChangeBuffer(bufferConfig), repairStats(), readState()]);
    const last = state.repairs[0] ?? null;
    const cooling = Object.values(state.cooldowns)
      .filter((until) => new Date(until).getTime() > now.getTime())
      .sort()
      .pop();
    return {
      status: stats.activeCount > 0 ? 'repairing' : buffer.pending.length > 0 ? 'buffering' : cooling ? 'cooldown' : 'idle',
      threshold: DOC_CHANGE_THRESHOLD,
      pendingPaths: buffer.pending.length,
      activeRepairs: stats.activeCount,
      lastRepair: last ? { repairId: last.repairId, status: last.status, at: last.updatedAt } : null,
      cooldownUntil: cooling ?? null,
    };
  }

  return { recordChanges, considerRepair, onRunFinished, repairStats, posture, repairs };
}

function runRepairOf(record: RepairRecord): RunRepair {
  return {
    repairId: record.repairId,
    classification: record.classification,
    status: record.status,
    verificationMode: record.verificationMode,
    verificationSummary: record.verificationSummary,
  };
}

export type RepairLoop = ReturnType<typeof createRepairLoop>;
