import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { DomainError } from '../domain/errors.js';
import { freshShared } from '../domain/fresh-share.js';
import type { StateStore } from '../store/types.js';
import type { AdmissionOutcome, Admit } from '../runtime/admission.js';
import type { TriggerCheck } from '../runtime/trigger-check.js';
import { nextFireTime } from './cron-expression.js';
import { dueFiring, MISFIRE_GRACE_MS, overlapAction, type DueFiring } from './firing-decision.js';
import {
  NO_FIRINGS,
  scheduleActor,
  scheduleRequesters,
  scheduleRunId,
  type ScheduleDefinition,
  type ScheduledFlow,
  type ScheduleFiringState,
} from './schedule-record.js';
import type { FlowService } from '../flows/flow-service.js';
import { scheduledFlowId } from './scheduled-flow-id.js';
import { validateFlowSteps } from '../flows/flow-validation.js';
import type { ScheduleStore } from './schedule-store.js';
import { placementOf } from '../domain/run-record.js';
import { tagsOf } from '../domain/run-tags.js';

/**
 * Asks for a run to be cancelled (the run-control cancel path). Injected: the schedules module
 * does not know how a run is stopped, only that overlap `cancel-previous` asks for it.
 */
export type CancelRun = (runId: string, actor: string, reason: string) => Promise<unknown>;

/** The flows a flow schedule's firings admit (src/flows/flow-service.ts). */
export type ScheduleFlows = Pick<FlowService, 'create' | 'get' | 'cancel'>;

export interface ScheduleTimerDeps {
  schedules: ScheduleStore;
  /** Reads the previous run of a schedule (overlap). */
  store: StateStore;
  clock: Clock;
  logger: Logger;
  admit: Admit;
  /**
   * The check a trigger passes, run again at each firing: a tick whose run could only fail now
   * (a setting its lane needs was removed since the schedule was written) is skipped with why.
   */
  checkTrigger: TriggerCheck;
  /** Absent: `cancel-previous` admits the new run beside the previous one (logged). */
  cancelRun?: CancelRun;
  /** Admits, reads and cancels the flows that flow schedules fire. Absent: their firings are skipped with why. */
  flows?: ScheduleFlows;
  /** How often the store is read again for schedules written by other instances (at most 5 s). */
  refreshIntervalMs?: number;
  graceMs?: number;
}

export interface ScheduleTimer {
  /** Reads the schedules, fires what is due, and keeps doing so until `stop`. */
  start(): void;
  /** A schedule changed on this instance: read again and re-arm at once. */
  reschedule(): void;
  /** One pass now (read, fire what is due, re-arm); resolves when it is done. */
  tick(): Promise<void>;
  /** No pass starts after this; resolves once a pass in progress is done, so the store can close. */
  stop(): Promise<void>;
}

export const DEFAULT_REFRESH_INTERVAL_MS = 2000;
/** setTimeout's longest delay; a later fire time is re-armed by the refresh passes anyway. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

/** A stored cron that no longer parses (checked at write; a later croner could read it otherwise) never fires. */
function nextFireTimeOrNull(definition: ScheduleDefinition, now: Date): Date | null {
  try {
    return nextFireTime(definition, now);
  } catch {
    return null;
  }
}

/**
 * Why a firing's admission found its run id held by a run that is not a firing of this schedule
 * (a client took the id before ids of this shape were reserved), or null: admitted, or found
 * admitted by another instance firing the same tick.
 */
function takenBy(outcome: AdmissionOutcome, scheduleId: string): string | null {
  const { run } = outcome;
  if (outcome.kind === 'admitted' || (run.source === 'schedule' && run.scheduleId === scheduleId)) return null;
  return `run id taken: ${run.runId} is a ${run.type} run admitted from ${run.source} by ${run.requestedBy}, not a firing of this schedule`;
}

/** Why the trigger check refuses the schedule's type and payload (or its flow's steps) now; null when it passes. */
function triggerRefusal(checkTrigger: TriggerCheck, definition: ScheduleDefinition): string | null {
  try {
    if (definition.flow) validateFlowSteps(definition.flow.steps, checkTrigger);
    else checkTrigger({ type: definition.type ?? '', payload: definition.payload });
    return null;
  } catch (err) {
    if (err instanceof DomainError) return err.message;
    throw err;
  }
}

const instant = (iso: string | null): Date | null => (iso === null ? null : new Date(iso));
const atOrAfter = (iso: string | null, fireAt: Date) => iso !== null && Date.parse(iso) >= fireAt.getTime();

/**
 * Fires user schedules on this instance. Every instance runs one, for every schedule: a tick is
 * admitted with the run id `schedule:<id>:<fire time>`, so however many instances fire it the
 * admission's idempotency check stores one run and answers the others `duplicate`.
 *
 * Nothing here is needed for correctness across a restart or between instances: what was fired
 * or skipped is in the store (schedule-store.ts), read again before each firing. The map of
 * ticks this instance already decided only saves it repeating store reads for them.
 *
 * Timing: one timer armed for the earliest next fire time of all enabled schedules (no busy
 * poll), plus a refresh every `refreshIntervalMs` that picks up schedules written elsewhere.
 * Times come from the injected clock; the timers only decide when to look.
 */
export function createScheduleTimer(deps: ScheduleTimerDeps): ScheduleTimer {
  const { schedules, clock, logger } = deps;
  const refreshIntervalMs = Math.min(deps.refreshIntervalMs ?? DEFAULT_REFRESH_INTERVAL_MS, 5000);
  const graceMs = deps.graceMs ?? MISFIRE_GRACE_MS;
  let definitions: ScheduleDefinition[] = [];
  const decided = new Map<string, number>();
  let fireTimer: NodeJS.Timeout | null = null;
  let refreshTimer: NodeJS.Timeout | null = null;
  let started = false;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();
  let warnedNoCancel = false;

  async function cancelPrevious(definition: ScheduleDefinition, previousRunId: string, fireAt: Date): Promise<void> {
    if (!deps.cancelRun) {
      if (!warnedNoCancel) logger.warn({ scheduleId: definition.id }, 'overlap cancel-previous without a cancel path: the new run is admitted beside the previous one');
      warnedNoCancel = true;
      return;
    }
    const reason = `schedule ${definition.id} fired at ${fireAt.toISOString()} (overlap cancel-previous)`;
    try {
      await deps.cancelRun(previousRunId, scheduleActor(definition.id), reason);
    } catch (err) {
      // The previous run may have finished meanwhile (a cancel answers conflict): the new run goes ahead.
      logger.warn({ err, scheduleId: definition.id, previousRunId }, 'cancel of the previous scheduled run failed');
    }
  }

  /** Decides one schedule's due tick and carries the decision out. */
  async function fireIfDue(cached: ScheduleDefinition, firing: ScheduleFiringState, now: Date): Promise<void> {
    const due = dueFiring({
      spec: cached,
      catchUp: cached.catchUp,
      decidedThrough: [instant(cached.activeSince), instant(firing.lastFiredAt), instant(firing.lastSkippedAt), decidedAt(cached.id)],
      now,
      graceMs,
    });
    if (due.kind === 'none') return;
    const before = decided.get(cached.id);
    decided.set(cached.id, due.fireAt.getTime());
    try {
      await carryOut(cached, due);
    } catch (err) {
      // Not decided after all (the store failed): the next pass, within the grace, tries the tick
      // again, and the admission's idempotency makes a second try of an admitted tick harmless.
      if (before === undefined) decided.delete(cached.id);
      else decided.set(cached.id, before);
      throw err;
    }
  }

  /** Carries out the decision for a due tick, with the store's current word on it. */
  async function carryOut(cached: ScheduleDefinition, due: Exclude<DueFiring, { kind: 'none' }>): Promise<void> {
    const { fireAt } = due;
    // Read again: another instance may have fired or skipped this tick, or the schedule changed.
    const [definition, fresh] = await Promise.all([schedules.get(cached.id), schedules.firings(cached.id)]);
    if (!definition || !definition.enabled) return;
    if (definition.updatedAt !== cached.updatedAt) {
      // Changed since this pass read it: the next pass decides with the new definition.
      decided.delete(cached.id);
      return;
    }
    const tick = fireAt.toISOString();
    // What the firing is named by: its run, or a flow schedule's flow (recorded with a skip too).
    const runId = definition.flow ? scheduledFlowId(definition.id, fireAt) : scheduleRunId(definition.id, fireAt);
    if (atOrAfter(fresh.lastFiredAt, fireAt) || atOrAfter(fresh.lastSkippedAt, fireAt)) {
      logger.debug({ scheduleId: definition.id, fireAt: tick }, 'schedule tick already decided by another instance');
      return;
    }

    if (due.kind === 'missed') {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId, reason: `missed: the service was not running at ${tick} (catchUp skip)` });
      logger.info({ scheduleId: definition.id, fireAt: tick }, 'scheduled firing missed and skipped');
      return;
    }
    const refused = triggerRefusal(deps.checkTrigger, definition);
    if (refused) {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId, reason: `refused: ${refused}` });
      logger.warn({ scheduleId: definition.id, fireAt: tick, reason: refused }, 'scheduled firing refused by the trigger check');
      return;
    }
    if (definition.flow) {
      await fireFlow(definition, definition.flow, due, fresh);
      return;
    }
    const previous = fresh.lastRunId === null ? null : await deps.store.getRun(fresh.lastRunId);
    const action = overlapAction(definition.overlap, previous);
    if (action.kind === 'skip') {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId, reason: action.reason });
      logger.info({ scheduleId: definition.id, fireAt: tick, reason: action.reason }, 'scheduled firing skipped');
      return;
    }
    if (action.kind === 'cancel-previous') await cancelPrevious(definition, action.previousRunId, fireAt);
    const outcome = await deps.admit({
      type: definition.type ?? '',
      payload: definition.payload,
      source: 'schedule',
      requestedBy: definition.createdBy,
      // Whoever shaped what this firing runs asks for it: none of them may approve it alone.
      requesters: scheduleRequesters(definition),
      forceRunId: runId,
      scheduleId: definition.id,
      placement: placementOf(definition),
      tags: tagsOf(definition),
    });
    const taken = takenBy(outcome, definition.id);
    if (taken !== null) {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId, reason: taken });
      logger.warn({ scheduleId: definition.id, fireAt: tick, runId }, `scheduled firing not admitted: ${taken}`);
      return;
    }
    await schedules.recordFiring(definition.id, { kind: 'fired', fireAt, runId: outcome.run.runId, catchUp: due.catchUp });
    logger.debug({ scheduleId: definition.id, fireAt: tick, runId: outcome.run.runId, outcome: outcome.kind, catchUp: due.catchUp }, 'schedule fired');
  }

  /** The previous firing's flow as overlap reads it: not ended counts as an unfinished run (null: none, or not a flow). */
  async function previousFlow(flows: ScheduleFlows, lastId: string | null): Promise<{ runId: string; status: 'running' | 'success' } | null> {
    if (lastId === null) return null;
    try {
      const flow = await flows.get(lastId);
      return { runId: flow.flowId, status: flow.status === 'running' ? 'running' : 'success' };
    } catch (err) {
      // The schedule fired a task before it fired flows: its last run is no flow.
      if (err instanceof DomainError && err.code === 'not_found') return null;
      throw err;
    }
  }

  /**
   * A flow schedule's due tick: the flow `<schedule id>.<fire time>` is admitted as POST /api/flows
   * admits one, so instances firing the same tick make one flow (its insert-if-absent answers the
   * others duplicate). `lastRunId` records the flow id; overlap reads the previous flow's status.
   */
  async function fireFlow(definition: ScheduleDefinition, flow: ScheduledFlow, due: Extract<DueFiring, { kind: 'fire' }>, fresh: ScheduleFiringState): Promise<void> {
    const { fireAt } = due;
    const flowId = scheduledFlowId(definition.id, fireAt);
    const flows = deps.flows;
    if (!flows) {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId: flowId, reason: 'refused: this instance admits no flows' });
      return;
    }
    const action = overlapAction(definition.overlap, await previousFlow(flows, fresh.lastRunId));
    if (action.kind === 'skip') {
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId: flowId, reason: action.reason.replace('previous run', 'previous flow') });
      return;
    }
    if (action.kind === 'cancel-previous') {
      const actor = scheduleActor(definition.id);
      const reason = `schedule ${definition.id} fired at ${fireAt.toISOString()} (overlap cancel-previous)`;
      await flows.cancel(action.previousRunId, reason, { actor, role: 'operator', apiKeyLabel: actor, apiKeyExpiresAt: null }).catch((err: unknown) => {
        // It ended meanwhile (a cancel answers conflict): the new flow goes ahead.
        logger.warn({ err, scheduleId: definition.id, previousFlowId: action.previousRunId }, 'cancel of the previous scheduled flow failed');
      });
    }
    const outcome = await flows.create({
      id: flowId,
      steps: flow.steps,
      requestedBy: definition.createdBy,
      requesters: scheduleRequesters(definition),
      scheduledBy: { scheduleId: definition.id, fireAt: fireAt.toISOString() },
    });
    if (outcome.kind === 'duplicate' && outcome.scheduledBy?.scheduleId !== definition.id) {
      const reason = `flow id taken: ${flowId} is a flow not admitted by this schedule`;
      await schedules.recordFiring(definition.id, { kind: 'skipped', fireAt, runId: flowId, reason });
      logger.warn({ scheduleId: definition.id, fireAt: fireAt.toISOString(), flowId }, `scheduled firing not admitted: ${reason}`);
      return;
    }
    await schedules.recordFiring(definition.id, { kind: 'fired', fireAt, runId: flowId, catchUp: due.catchUp });
    logger.debug({ scheduleId: definition.id, fireAt: fireAt.toISOString(), flowId, outcome: outcome.kind, catchUp: due.catchUp }, 'schedule fired a flow');
  }

  function decidedAt(id: string): Date | null {
    const ms = decided.get(id);
    return ms === undefined ? null : new Date(ms);
  }

  function arm(): void {
    if (fireTimer !== null) clearTimeout(fireTimer);
    fireTimer = null;
    // A pass asked for with `tick` before `start` (a test stepping its clock) arms nothing.
    if (stopped || !started) return;
    const now = clock.now();
    let next = Number.POSITIVE_INFINITY;
    for (const definition of definitions) {
      if (!definition.enabled) continue;
      const at = nextFireTimeOrNull(definition, now);
      if (at !== null) next = Math.min(next, at.getTime());
    }
    if (next === Number.POSITIVE_INFINITY) return;
    // One millisecond past the fire time: a timer that wakes early would find the tick not yet due.
    fireTimer = setTimeout(() => void run(), Math.min(next - now.getTime() + 1, MAX_TIMER_DELAY_MS));
    fireTimer.unref();
  }

  async function pass(): Promise<void> {
    if (stopped) return;
    try {
      const [listed, firings] = await Promise.all([schedules.list(), schedules.allFirings()]);
      definitions = listed;
      const ids = new Set(listed.map((d) => d.id));
      for (const id of decided.keys()) if (!ids.has(id)) decided.delete(id);
      const now = clock.now();
      await Promise.all(
        listed
          .filter((d) => d.enabled)
          .map((d) =>
            fireIfDue(d, firings.get(d.id) ?? NO_FIRINGS, now).catch((err: unknown) => {
              logger.error({ err, scheduleId: d.id }, 'schedule firing failed');
            }),
          ),
      );
    } catch (err) {
      logger.error({ err }, 'reading the schedules failed');
    } finally {
      arm();
    }
  }

  const sharedPass = freshShared(pass);
  function run(): Promise<void> {
    if (stopped) return inFlight;
    const current = sharedPass();
    inFlight = current;
    return current;
  }

  return {
    start() {
      if (started || stopped) return;
      started = true;
      refreshTimer = setInterval(() => void run(), refreshIntervalMs);
      refreshTimer.unref();
      void run();
    },
    reschedule() {
      if (started) void run();
    },
    tick: run,
    async stop() {
      stopped = true;
      if (fireTimer !== null) clearTimeout(fireTimer);
      if (refreshTimer !== null) clearInterval(refreshTimer);
      await inFlight;
    },
  };
}
