import type { Candidate } from './planner.js';

/** Cycle states (DECISIONS.md): `idle` is the scheduler's word for "no cycle active". */
export const CYCLE_STATES = ['active', 'completed', 'failed', 'blocked', 'idle'] as const;
export type CycleState = (typeof CYCLE_STATES)[number];

export const SCHEDULER_MODES = ['enabled', 'paused', 'disabled'] as const;
export type SchedulerMode = (typeof SCHEDULER_MODES)[number];

/** Why a trigger was refused (the 409's decision code) or a scheduled slot skipped. */
export type RefusalCode = 'active' | 'cooldown' | 'paused' | 'disabled' | 'backoff';
export type SkipCode = RefusalCode | 'unchanged' | 'not-due';

export const DUPLICATE_CLICK_COOLDOWN_MS = 30_000;
export const BACKOFF_BASE_MS = 15 * 60_000;
export const CADENCE_MS = 6 * 60 * 60_000;
export const ORPHANED_LOCK_MS = 30 * 60_000;
/** A scheduled slot is not due while a cycle started within half the cadence (an operator ran one). */
export const NOT_DUE_WINDOW_MS = CADENCE_MS / 2;

export type TriggerSource = 'operator' | 'schedule' | 'retry' | 'task';

export interface ActiveLock {
  cycleId: string;
  runId: string;
  acquiredAt: string;
  ownerId: string;
}

/** The scheduler's persisted state (one document; survives restarts). */
export interface SchedulerState {
  mode: SchedulerMode;
  modeChangedAt: string | null;
  modeChangedBy: string | null;
  cron: string;
  lastTriggerReason: string | null;
  lastTriggerSource: TriggerSource | null;
  lastTriggeredAt: string | null;
  nextRunAt: string | null;
  lastProgress: { at: string; cycleId: string; state: CycleState; summary: string } | null;
  failureBackoff: { consecutiveFailures: number; lastFailureAt: string; backoffUntil: string } | null;
  activeLock: ActiveLock | null;
  lastEvaluation: { at: string; outcome: 'started' | 'skipped'; reason: string } | null;
  /** Registry fingerprint and selected-task outcome the last finished cycle planned from. */
  lastInputs: string | null;
}

export interface CycleRecord {
  cycleId: string;
  state: Exclude<CycleState, 'idle'>;
  trigger: { source: TriggerSource; reason: string; requestedBy: string };
  startedAt: string;
  updatedAt: string;
  finishedAt: string | null;
  /** The business-value-cycle run; null only for a cycle whose run could not be admitted. */
  runId: string | null;
  taskId: string | null;
  retryOf: string | null;
  retriedBy: string | null;
  registry: { status: string; fingerprint: string | null; schemaVersion: string | null; problems: Array<{ path: string; message: string }> } | null;
  candidates: Candidate[];
  selected: { candidateId: string; taskType: string; runId: string; taskId: string; admission: string } | null;
  approvalGated: Array<{ candidateId: string; kind: string; reason: string }>;
  evidence: string[];
  blockers: string[];
  nextActions: string[];
  error: string | null;
}

export function initialSchedulerState(cron: string): SchedulerState {
  return {
    mode: 'enabled',
    modeChangedAt: null,
    modeChangedBy: null,
    cron,
    lastTriggerReason: null,
    lastTriggerSource: null,
    lastTriggeredAt: null,
    nextRunAt: null,
    lastProgress: null,
    failureBackoff: null,
    activeLock: null,
    lastEvaluation: null,
    lastInputs: null,
  };
}

/** Failure backoff after n consecutive failures: 15 min × 2^(n−1), capped at the 6 h cadence. */
export function backoffMs(consecutiveFailures: number): number {
  if (consecutiveFailures <= 0) return 0;
  return Math.min(CADENCE_MS, BACKOFF_BASE_MS * 2 ** (consecutiveFailures - 1));
}

/** A persisted lock is orphaned when older than 30 min and its run is not live (pending, running, retrying). */
export function isOrphaned(lock: ActiveLock, runStatus: string | null, now: Date): boolean {
  const live = runStatus === 'pending' || runStatus === 'running' || runStatus === 'retrying';
  return !live && now.getTime() - Date.parse(lock.acquiredAt) > ORPHANED_LOCK_MS;
}

/**
 * Why a new cycle may not start now, or null. Order: mode first (an operator's switch), then an
 * active cycle, then failure backoff, then the duplicate-click cooldown. `retry` is an operator's
 * explicit way out of a failure, so it skips cooldown and backoff.
 */
export function refusalFor(state: SchedulerState, now: Date, source: TriggerSource): { code: RefusalCode; message: string; until?: string } | null {
  if (state.mode === 'disabled') return { code: 'disabled', message: 'the business scheduler is disabled' };
  if (state.mode === 'paused') return { code: 'paused', message: 'the business scheduler is paused' };
  if (state.activeLock) return { code: 'active', message: `business cycle ${state.activeLock.cycleId} is active` };
  if (source === 'retry') return null;
  const backoff = state.failureBackoff;
  if (backoff && now.getTime() < Date.parse(backoff.backoffUntil)) {
    return {
      code: 'backoff',
      message: `business cycles are in failure backoff after ${backoff.consecutiveFailures} failure(s)`,
      until: backoff.backoffUntil,
    };
  }
  if (state.lastTriggeredAt) {
    const until = Date.parse(state.lastTriggeredAt) + DUPLICATE_CLICK_COOLDOWN_MS;
    if (now.getTime() < until) return { code: 'cooldown', message: 'a business cycle was just triggered', until: new Date(until).toISOString() };
  }
  return null;
}

/** Why the automatic scheduler skips this slot, or null to start a cycle. */
export function scheduledSkip(state: SchedulerState, now: Date, currentInputs: string | null): { code: SkipCode; message: string } | null {
  const refused = refusalFor(state, now, 'schedule');
  if (refused) return refused;
  if (state.lastTriggeredAt && now.getTime() - Date.parse(state.lastTriggeredAt) < NOT_DUE_WINDOW_MS) {
    return { code: 'not-due', message: 'a cycle started less than half a cadence ago' };
  }
  if (currentInputs !== null && state.lastInputs === currentInputs && state.lastProgress?.state !== 'failed') {
    return { code: 'unchanged', message: 'registry and the last selected task are unchanged since the last cycle' };
  }
  return null;
}

/** The scheduler state after a cycle finished in `state`. */
export function afterCycleFinished(
  current: SchedulerState,
  cycle: { cycleId: string; state: CycleRecord['state']; summary: string; countsAsFailure: boolean },
  now: Date,
  inputs: string | null,
): SchedulerState {
  const at = now.toISOString();
  let failureBackoff = current.failureBackoff;
  if (cycle.state === 'failed' && cycle.countsAsFailure) {
    const n = (failureBackoff?.consecutiveFailures ?? 0) + 1;
    failureBackoff = { consecutiveFailures: n, lastFailureAt: at, backoffUntil: new Date(now.getTime() + backoffMs(n)).toISOString() };
  } else if (cycle.state !== 'failed') {
    failureBackoff = null;
  }
  return {
    ...current,
    activeLock: current.activeLock?.cycleId === cycle.cycleId ? null : current.activeLock,
    lastProgress: { at, cycleId: cycle.cycleId, state: cycle.state, summary: cycle.summary },
    failureBackoff,
    lastInputs: inputs ?? current.lastInputs,
  };
}
