import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { Cron } from 'croner';
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { Coordination } from '../coordination/types.js';
import { conflict, DomainError, notFound } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import { SERVICE_RUN_ID_PREFIXES } from '../domain/service-run-ids.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../tasks/admission.js';
import type { HandlerOutcome, StateHandler } from '../tasks/handler-types.js';
import { getCatalogEntry } from '../tasks/catalog.js';
import { checkTaskRequest } from '../tasks/payload-validation.js';
import { actorList } from '../tasks/run-requesters.js';
import { checkPayloadScopes } from '../workspace/boundary.js';
import { createCycleGate } from './cycle-gate.js';
import {
  afterCycleFinished,
  isOrphaned,
  refusalFor,
  scheduledSkip,
  type CycleRecord,
  type SchedulerMode,
  type SchedulerState,
  type TriggerSource,
} from './cycle-rules.js';
import { createCycleStore } from './cycle-store.js';
import { rankCandidates, selectCandidate, type Candidate, type PlannerContext } from './planner.js';
import { loadRegistry, type RegistryLoad } from './registry.js';

export const BUSINESS_CYCLE_TASK = 'business-value-cycle';
const GATE_WAIT_MS = 2000;
const FINISH_WAIT_MS = 15_000;
const CANDIDATES_KEPT = 25;
/** How many recent cycles are consulted for candidates whose task is still in flight. */
const IN_FLIGHT_WINDOW = 20;
const LIVE = new Set(['pending', 'running', 'retrying']);

export interface BusinessDeps {
  config: AppConfig;
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  /** The runtime's one admission path (bound after the runtime exists: its handlers need this service). */
  admit: Admit;
}

export const SCHEDULER_ACTIONS = ['pause', 'resume', 'enable', 'disable'] as const;
export type SchedulerAction = (typeof SCHEDULER_ACTIONS)[number];
const MODE_OF: Record<SchedulerAction, SchedulerMode> = { pause: 'paused', resume: 'enabled', enable: 'enabled', disable: 'disabled' };

/** The actor of the task a cycle's planner admits (beside whoever triggered the cycle). */
const PLANNER_ACTOR = 'business-planner';
const runIdOf = (cycleId: string) => `${SERVICE_RUN_ID_PREFIXES.businessCycle}${cycleId}`;
const taskRunIdOf = (cycleId: string) => `${SERVICE_RUN_ID_PREFIXES.businessTask}${cycleId}`;

/** The next cron slot after `from`, or null when the pattern has none. */
export function nextSlot(cron: string, from: Date): string | null {
  const job = new Cron(cron, { paused: true });
  try {
    return job.nextRun(from)?.toISOString() ?? null;
  } finally {
    job.stop();
  }
}

/**
 * The business-value planner's cycles and scheduler: starting, retrying and finishing cycles,
 * the automatic slot evaluation, the scheduler switch, and the read models of the business
 * routes. All state lives in the state store; all decisions run inside the cycle gate.
 */
export function createBusinessService(deps: BusinessDeps) {
  const { config, store, clock, logger } = deps;
  const cycles = createCycleStore(store, config.businessCycleCron);
  const withGate = createCycleGate(deps.coordination);
  const registryName = () => relative(config.baseDir, config.businessRegistryPath) || config.businessRegistryPath;

  function checkPayload(taskType: string, payload: Record<string, unknown>): string | null {
    try {
      const checked = checkTaskRequest({ type: taskType, payload });
      const scope = checkPayloadScopes(checked.entry, checked.payload, config.workspaceRoot);
      return scope.length > 0 ? `payload ${scope.map((d) => `${d.path} ${d.message}`).join('; ')}` : null;
    } catch (err) {
      const details = (err as { details?: Array<{ path: string; message: string }> }).details;
      return `${(err as Error).message}${details ? `: ${details.map((d) => `${d.path} ${d.message}`).join('; ')}` : ''}`;
    }
  }

  async function runStatus(runId: string | null | undefined): Promise<string | null> {
    if (!runId) return null;
    return (await store.getRun(runId))?.status ?? null;
  }

  async function plannerContext(): Promise<PlannerContext> {
    const inFlight = new Set<string>();
    for (const cycle of (await cycles.cycles()).slice(0, IN_FLIGHT_WINDOW)) {
      if (cycle.selected && LIVE.has((await runStatus(cycle.selected.runId)) ?? '')) inFlight.add(cycle.selected.candidateId);
    }
    return { inFlight, checkPayload };
  }

  /** Registry fingerprint plus the last selected task's status: "unchanged" when both are. */
  async function currentInputs(registry: RegistryLoad, lastSelectedRunId: string | null): Promise<string | null> {
    if (!registry.fingerprint) return null;
    return `${registry.fingerprint}|${lastSelectedRunId ?? 'none'}:${(await runStatus(lastSelectedRunId)) ?? 'none'}`;
  }

  async function finishCycle(
    cycle: CycleRecord,
    outcome: Partial<CycleRecord> & { state: CycleRecord['state'] },
    summary: string,
    countsAsFailure: boolean,
    inputs: string | null,
  ): Promise<CycleRecord> {
    const now = clock.now();
    const finished: CycleRecord = { ...cycle, ...outcome, updatedAt: now.toISOString(), finishedAt: now.toISOString() };
    await cycles.saveCycle(finished);
    const scheduler = await cycles.scheduler();
    await cycles.saveScheduler(afterCycleFinished(scheduler, { cycleId: cycle.cycleId, state: outcome.state, summary, countsAsFailure }, now, inputs));
    return finished;
  }

  /** Inside the gate: frees a persisted lock whose run is gone or finished (DECISIONS: orphaned after 30 min). */
  async function reconcileLocked(state: SchedulerState): Promise<SchedulerState> {
    const lock = state.activeLock;
    if (!lock) return state;
    const run = await store.getRun(lock.runId);
    const status = run?.status ?? null;
    const cycle = await cycles.cycle(lock.cycleId);
    const now = clock.now();
    if (status === 'failed' && cycle?.state === 'active') {
      logger.warn({ cycleId: lock.cycleId }, 'business cycle run failed; cycle marked failed');
      const error = run?.error ?? 'the cycle run failed';
      await finishCycle(cycle, { state: 'failed', error, blockers: [error], nextActions: [`POST /api/business/cycles/${cycle.cycleId}/retry`] }, error, true, null);
      return cycles.scheduler();
    }
    if (status === 'cancelled' && cycle?.state === 'active') {
      // An operator stopped the cycle's run: the cycle ends, but a cancel is not a planner failure (no backoff).
      const error = `the cycle run was cancelled by ${run?.cancellation?.requestedBy ?? 'an operator'}`;
      logger.warn({ cycleId: lock.cycleId }, 'business cycle run cancelled; cycle marked failed');
      await finishCycle(cycle, { state: 'failed', error, blockers: [error], nextActions: [`POST /api/business/cycles/${cycle.cycleId}/retry`] }, error, false, null);
      return cycles.scheduler();
    }
    if (isOrphaned(lock, status, now) || (cycle && cycle.state !== 'active') || (status === 'success' && !cycle)) {
      logger.warn({ cycleId: lock.cycleId, runStatus: status }, 'orphaned business cycle lock reconciled');
      if (cycle?.state === 'active') {
        const error = `orphaned lock: no live execution for cycle run ${lock.runId} (run ${status ?? 'missing'})`;
        // An orphan is lost infrastructure, not a planner failure: it does not add to the backoff.
        await finishCycle(cycle, { state: 'failed', error, blockers: [error], nextActions: [`POST /api/business/cycles/${cycle.cycleId}/retry`] }, error, false, null);
        return cycles.scheduler();
      }
      const next = { ...state, activeLock: null };
      await cycles.saveScheduler(next);
      return next;
    }
    return state;
  }

  /** Inside the gate: records the cycle and its lock, then admits its run through the one admission path. */
  async function startLocked(
    state: SchedulerState,
    trigger: CycleRecord['trigger'],
    options: { cycleId?: string; retryOf?: string; runId?: string },
  ): Promise<CycleRecord> {
    const now = clock.now();
    const at = now.toISOString();
    const cycleId = options.cycleId ?? `cycle-${at.replace(/[:.]/g, '')}-${randomUUID().slice(0, 8)}`;
    const runId = options.runId ?? runIdOf(cycleId);
    const cycle: CycleRecord = {
      cycleId,
      state: 'active',
      trigger,
      startedAt: at,
      updatedAt: at,
      finishedAt: null,
      runId,
      taskId: null,
      retryOf: options.retryOf ?? null,
      retriedBy: null,
      registry: null,
      candidates: [],
      selected: null,
      approvalGated: [],
      evidence: [],
      blockers: [],
      nextActions: [],
      error: null,
    };
    await cycles.saveCycle(cycle);
    await cycles.saveScheduler({
      ...state,
      activeLock: { cycleId, runId, acquiredAt: at, ownerId: trigger.requestedBy },
      lastTriggerReason: trigger.reason,
      lastTriggerSource: trigger.source,
      lastTriggeredAt: at,
      nextRunAt: state.mode === 'enabled' ? nextSlot(state.cron, now) : null,
    });
    if (options.runId) return cycle;
    try {
      const outcome = await deps.admit({
        type: BUSINESS_CYCLE_TASK,
        payload: { cycleId, reason: trigger.reason },
        source: trigger.source === 'schedule' ? 'scheduler' : 'api',
        requestedBy: trigger.requestedBy,
        forceRunId: runId,
      });
      const admitted = { ...cycle, taskId: outcome.run.taskId };
      await cycles.saveCycle(admitted);
      return admitted;
    } catch (err) {
      const error = `the cycle run could not be admitted: ${(err as Error).message}`;
      await finishCycle(cycle, { state: 'failed', error, blockers: [error] }, error, true, null);
      throw err;
    }
  }

  function refuse(state: SchedulerState, source: TriggerSource): void {
    const refusal = refusalFor(state, clock.now(), source);
    if (refusal) throw conflict(refusal.message, { decision: refusal.code, ...(refusal.until ? { until: refusal.until } : {}) });
  }

  async function trigger(reason: string | undefined, identity: Identity) {
    const cycle = await withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLocked(await cycles.scheduler());
      refuse(state, 'operator');
      return startLocked(state, { source: 'operator', reason: reason ?? 'operator trigger', requestedBy: identity.actor }, {});
    });
    return { status: 'queued' as const, cycleId: cycle.cycleId, taskId: cycle.taskId, runId: cycle.runId };
  }

  async function retry(cycleId: string, identity: Identity) {
    const cycle = await withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLocked(await cycles.scheduler());
      const failed = await cycles.cycle(cycleId);
      if (!failed) throw notFound(`business cycle ${cycleId}`);
      if (failed.state !== 'failed') throw conflict(`business cycle ${cycleId} did not fail (state ${failed.state}); only failed cycles are retried`, { decision: 'not-failed' });
      if (failed.retriedBy) throw conflict(`business cycle ${cycleId} was already retried as ${failed.retriedBy}`, { decision: 'already-retried' });
      refuse(state, 'retry');
      const started = await startLocked(state, { source: 'retry', reason: `retry of ${cycleId}`, requestedBy: identity.actor }, { retryOf: cycleId });
      await cycles.saveCycle({ ...failed, retriedBy: started.cycleId, updatedAt: clock.now().toISOString() });
      return started;
    });
    return { status: 'queued' as const, cycleId: cycle.cycleId, taskId: cycle.taskId, runId: cycle.runId, retryOf: cycleId };
  }

  async function setScheduler(action: SchedulerAction, identity: Identity) {
    const state = await withGate(GATE_WAIT_MS, async () => {
      const current = await cycles.scheduler();
      const mode = MODE_OF[action];
      const now = clock.now();
      const next: SchedulerState = {
        ...current,
        mode,
        modeChangedAt: now.toISOString(),
        modeChangedBy: identity.actor,
        nextRunAt: mode === 'enabled' ? nextSlot(current.cron, now) : null,
      };
      await cycles.saveScheduler(next);
      return next;
    });
    return { status: 'updated' as const, scheduler: state };
  }

  /** One automatic slot: reconcile orphans first, then skip or start (deterministic cycle id per slot). */
  async function evaluateSchedule(): Promise<{ outcome: 'started' | 'skipped'; reason: string; cycleId?: string }> {
    try {
      const evaluated = await evaluateLocked();
      logger.info(evaluated, 'business slot evaluated');
      return evaluated;
    } catch (err) {
      // Another instance holds the gate for this very slot: that one decides.
      if (err instanceof DomainError && err.code === 'conflict') return { outcome: 'skipped', reason: 'active' };
      throw err;
    }
  }

  function evaluateLocked(): Promise<{ outcome: 'started' | 'skipped'; reason: string; cycleId?: string }> {
    return withGate(GATE_WAIT_MS, async () => {
      const now = clock.now();
      const state = await reconcileLocked(await cycles.scheduler());
      const [latest] = await cycles.cycles();
      const inputs = await currentInputs(await loadRegistry(config.businessRegistryPath, config.workspaceRoot), latest?.selected?.runId ?? null);
      const skip = scheduledSkip(state, now, inputs);
      const nextRunAt = state.mode === 'enabled' ? nextSlot(state.cron, now) : null;
      if (skip) {
        await cycles.saveScheduler({ ...state, nextRunAt, lastEvaluation: { at: now.toISOString(), outcome: 'skipped', reason: skip.code } });
        return { outcome: 'skipped' as const, reason: skip.code };
      }
      const slot = new Date(Math.floor(now.getTime() / 60_000) * 60_000).toISOString().replace(/[:.]/g, '');
      const started = await startLocked(
        { ...state, lastEvaluation: { at: now.toISOString(), outcome: 'started', reason: 'due' } },
        { source: 'schedule', reason: 'scheduled cadence', requestedBy: 'scheduler' },
        { cycleId: `scheduled-${slot}` },
      );
      return { outcome: 'started' as const, reason: 'due', cycleId: started.cycleId };
    });
  }

  /** The cycle a run executes: the one the trigger recorded, or (a direct task trigger) a new one through the same gate. */
  async function cycleForRun(runId: string, payload: Record<string, unknown>, requestedBy: string): Promise<CycleRecord> {
    if (typeof payload.cycleId === 'string') {
      const recorded = await cycles.cycle(payload.cycleId);
      if (recorded) return recorded;
    }
    return withGate(GATE_WAIT_MS, async () => {
      const state = await reconcileLocked(await cycles.scheduler());
      if (state.activeLock?.runId === runId) {
        const mine = await cycles.cycle(state.activeLock.cycleId);
        if (mine) return mine;
      }
      const refusal = refusalFor(state, clock.now(), 'task');
      if (refusal) {
        throw conflict(`business cycle refused (${refusal.code}): ${refusal.message}`, {
          decision: refusal.code,
          ...(refusal.until ? { until: refusal.until } : {}),
        });
      }
      const reason = typeof payload.reason === 'string' ? payload.reason : 'task trigger';
      return startLocked(state, { source: 'task', reason, requestedBy }, { runId, cycleId: `cycle-run-${runId.replace(/[^A-Za-z0-9._-]/g, '-')}` });
    });
  }

  /** What one cycle plans and enqueues: at most one safe internal task, through the one admission path. */
  async function planCycle(cycle: CycleRecord): Promise<{ finished: CycleRecord; summary: string }> {
    const registry = await loadRegistry(config.businessRegistryPath, config.workspaceRoot);
    const registryEvidence = {
      status: registry.status,
      fingerprint: registry.fingerprint,
      schemaVersion: registry.status === 'ok' ? registry.schemaVersion : null,
      problems: registry.status === 'ok' ? [] : registry.problems,
    };
    if (registry.status !== 'ok') {
      const summary = `blocked: ${registry.reason}`;
      const finished = await withGate(FINISH_WAIT_MS, () =>
        finishCycle(
          cycle,
          {
            state: 'blocked',
            registry: registryEvidence,
            evidence: [`registry ${registryName()}: ${registry.status}`],
            blockers: [registry.reason],
            nextActions: [`Fix the business registry at ${registryName()} (schema version 2.0.1), then trigger a cycle.`],
          },
          summary,
          false,
          registry.fingerprint ? `${registry.fingerprint}|none:none` : null,
        ),
      );
      return { finished, summary };
    }
    const ranked = rankCandidates(registry.registry, await plannerContext());
    const chosen = selectCandidate(ranked);
    const approvalGated = ranked
      .filter((c) => c.disposition === 'approval-gated')
      .map((c) => ({ candidateId: c.candidateId, kind: c.action.kind, reason: c.dispositionReason ?? 'needs an operator' }));
    const evidence = [
      `registry ${registryName()} schema ${registry.schemaVersion} fingerprint ${registry.fingerprint}`,
      `${ranked.length} candidate(s) ranked; ${ranked.filter((c) => c.disposition === 'eligible').length} eligible; ${approvalGated.length} approval-gated`,
    ];
    let selected: CycleRecord['selected'] = null;
    if (chosen?.action.taskType && chosen.payload) {
      const { idempotencyKey: _ignored, requiresApproval: _alsoIgnored, ...payload } = chosen.payload;
      const outcome = await deps.admit({
        type: chosen.action.taskType,
        payload,
        source: 'system',
        requestedBy: PLANNER_ACTOR,
        // The planner chose the task for whoever triggered the cycle.
        requesters: actorList([PLANNER_ACTOR, cycle.trigger.requestedBy]),
        forceRunId: taskRunIdOf(cycle.cycleId),
      });
      selected = { candidateId: chosen.candidateId, taskType: chosen.action.taskType, runId: outcome.run.runId, taskId: outcome.run.taskId, admission: outcome.kind };
      evidence.push(`enqueued ${chosen.action.taskType} as run ${outcome.run.runId} (${outcome.kind}) for ${chosen.candidateId} (score ${chosen.score})`);
    }
    const blockers = selected ? [] : ['no candidate is eligible for automatic enqueueing (see candidates[].dispositionReason)'];
    const nextActions = [
      ...(selected ? [`Follow run ${selected.runId} (GET /api/tasks/runs/${encodeURIComponent(selected.runId)}).`] : []),
      ...approvalGated.map((c) => `Decide ${c.candidateId} (${c.kind}) yourself: the planner never performs it.`),
    ];
    const summary = selected ? `completed: enqueued ${selected.taskType} for ${selected.candidateId}` : 'blocked: no eligible candidate';
    const inputs = `${registry.fingerprint}|${selected?.runId ?? 'none'}:${(await runStatus(selected?.runId)) ?? 'none'}`;
    const finished = await withGate(FINISH_WAIT_MS, () =>
      finishCycle(
        cycle,
        {
          state: selected ? 'completed' : 'blocked',
          registry: registryEvidence,
          candidates: ranked.slice(0, CANDIDATES_KEPT),
          selected,
          approvalGated,
          evidence,
          blockers,
          nextActions,
        },
        summary,
        false,
        inputs,
      ),
    );
    return { finished, summary };
  }

  /** The in-process handler of business-value-cycle. */
  const handler: StateHandler<unknown> = async (_state, _context, input): Promise<HandlerOutcome> => {
    const cycle = await cycleForRun(input.runId, input.payload, 'task');
    if (cycle.state !== 'active') {
      return { status: 'completed', result: { cycleId: cycle.cycleId, state: cycle.state, note: 'cycle already finished' } };
    }
    try {
      const { finished, summary } = await planCycle(cycle);
      return {
        status: 'completed',
        result: {
          cycleId: finished.cycleId,
          state: finished.state,
          selected: finished.selected,
          candidatesRanked: finished.candidates.length,
          approvalGated: finished.approvalGated,
          blockers: finished.blockers,
          operatorSummary: `Business cycle ${finished.cycleId} ${summary}.`,
          recommendedNextActions: finished.nextActions,
        },
      };
    } catch (err) {
      const error = (err as Error).message;
      await withGate(FINISH_WAIT_MS, () =>
        finishCycle(cycle, { state: 'failed', error, blockers: [error], nextActions: [`POST /api/business/cycles/${cycle.cycleId}/retry`] }, error, true, null),
      );
      throw err;
    }
  };

  // Read models of the business routes.

  async function liveCandidates() {
    const registry = await loadRegistry(config.businessRegistryPath, config.workspaceRoot);
    if (registry.status !== 'ok') return { registry, candidates: [] as Candidate[], wouldSelect: null as Candidate | null };
    const candidates = rankCandidates(registry.registry, await plannerContext());
    return { registry, candidates, wouldSelect: selectCandidate(candidates) };
  }

  function registrySummary(registry: RegistryLoad) {
    if (registry.status !== 'ok') {
      return { path: registryName(), status: registry.status, schemaVersion: null, fingerprint: registry.fingerprint, problems: registry.problems, counts: null };
    }
    const r = registry.registry;
    return {
      path: registryName(),
      status: registry.status,
      schemaVersion: r.schemaVersion,
      fingerprint: registry.fingerprint,
      problems: [],
      counts: {
        strategicInitiatives: r.strategicInitiatives.length,
        businessRisks: r.businessRisks.length,
        coverageGaps: r.coverageGaps.length,
        pipeline: r.pipeline.length,
      },
      approvalPolicy: r.approvalPolicy,
    };
  }

  async function schedulerView() {
    const state = await cycles.scheduler();
    const now = clock.now();
    return {
      ...state,
      cycleState: state.activeLock ? ('active' as const) : ('idle' as const),
      nextRunAt: state.mode === 'enabled' ? (state.nextRunAt && Date.parse(state.nextRunAt) > now.getTime() ? state.nextRunAt : nextSlot(state.cron, now)) : null,
      backoffActive: state.failureBackoff !== null && Date.parse(state.failureBackoff.backoffUntil) > now.getTime(),
    };
  }

  async function overview() {
    const [{ registry, candidates, wouldSelect }, scheduler, [latest]] = await Promise.all([liveCandidates(), schedulerView(), cycles.cycles()]);
    const selectedRun = latest?.selected ? await store.getRun(latest.selected.runId) : null;
    return {
      mission: registry.status === 'ok' ? registry.registry.mission : null,
      missionUnknownReason: registry.status === 'ok' ? null : registry.reason,
      registry: registrySummary(registry),
      candidates: candidates.slice(0, CANDIDATES_KEPT),
      selectedTask: latest?.selected ? { ...latest.selected, cycleId: latest.cycleId, status: selectedRun?.status ?? null } : null,
      wouldSelectNow: wouldSelect?.candidateId ?? null,
      scheduler,
      blockers: [...(registry.status === 'ok' ? [] : [registry.reason]), ...(latest?.blockers ?? [])],
      verification: latest?.selected
        ? { runId: latest.selected.runId, status: selectedRun?.status ?? null, summary: selectedRun?.operatorSummary ?? null }
        : { runId: null, status: null, summary: 'no task has been enqueued by a cycle yet' },
      evidence: latest?.evidence ?? [],
      nextActions: latest?.nextActions ?? ['POST /api/business/cycle/trigger to run a first cycle.'],
      latestCycle: latest ? { cycleId: latest.cycleId, state: latest.state, startedAt: latest.startedAt, finishedAt: latest.finishedAt } : null,
    };
  }

  async function operations() {
    const [scheduler, { candidates }, [latest]] = await Promise.all([schedulerView(), liveCandidates(), cycles.cycles()]);
    const worker = latest?.selected ? await store.getRun(latest.selected.runId) : null;
    return {
      automaticMode: scheduler.mode,
      cadence: scheduler.cron,
      cycleState: scheduler.cycleState,
      nextRunAt: scheduler.nextRunAt,
      activeLock: scheduler.activeLock,
      lastProgress: scheduler.lastProgress,
      failureBackoff: scheduler.failureBackoff ? { ...scheduler.failureBackoff, active: scheduler.backoffActive } : null,
      lastTrigger: { reason: scheduler.lastTriggerReason, source: scheduler.lastTriggerSource, at: scheduler.lastTriggeredAt },
      lastEvaluation: scheduler.lastEvaluation,
      activeWorker:
        worker && LIVE.has(worker.status)
          ? { runId: worker.runId, type: worker.type, status: worker.status, agentId: getCatalogEntry(worker.type)?.agentId ?? null }
          : null,
      // The planner ranks deterministically and calls no model: there is no model evidence to show.
      selectedModel: { value: null, reason: 'the planner is deterministic and calls no model; no model evidence is available' },
      approvalGatedCandidates: candidates
        .filter((c) => c.disposition === 'approval-gated')
        .map((c) => ({ candidateId: c.candidateId, kind: c.action.kind, title: c.title, reason: c.dispositionReason })),
    };
  }

  async function candidatesView() {
    const { registry, candidates, wouldSelect } = await liveCandidates();
    return {
      generatedAt: clock.now().toISOString(),
      registry: registrySummary(registry),
      count: candidates.length,
      wouldSelect: wouldSelect?.candidateId ?? null,
      candidates,
    };
  }

  async function listCycles(limit: number, offset: number) {
    const all = await cycles.cycles();
    return {
      total: all.length,
      limit,
      offset,
      cycles: all.slice(offset, offset + limit).map((c) => ({
        cycleId: c.cycleId,
        state: c.state,
        trigger: c.trigger,
        startedAt: c.startedAt,
        finishedAt: c.finishedAt,
        runId: c.runId,
        retryOf: c.retryOf,
        retriedBy: c.retriedBy,
        selected: c.selected,
        blockers: c.blockers,
      })),
    };
  }

  /** The business read port of the aggregates (companion overview): scheduler posture and the latest cycle. */
  async function summary() {
    const [scheduler, [latest]] = await Promise.all([schedulerView(), cycles.cycles()]);
    return {
      schedulerMode: scheduler.mode,
      activeCycleId: scheduler.activeLock?.cycleId ?? null,
      lastCycleStatus: latest?.state ?? null,
      nextRunAt: scheduler.nextRunAt,
    };
  }

  async function cycleDetail(cycleId: string) {
    const cycle = await cycles.cycle(cycleId);
    if (!cycle) throw notFound(`business cycle ${cycleId}`);
    const [runStatusNow, selectedStatus] = await Promise.all([runStatus(cycle.runId), runStatus(cycle.selected?.runId)]);
    return { ...cycle, run: { runId: cycle.runId, status: runStatusNow }, selectedRunStatus: selectedStatus };
  }

  return {
    handler,
    trigger,
    retry,
    setScheduler,
    evaluateSchedule,
    overview,
    operations,
    candidates: candidatesView,
    listCycles,
    cycleDetail,
    summary,
  };
}

export type BusinessService = ReturnType<typeof createBusinessService>;
