/**
 * The read models of the business routes and of the aggregates' business port: the overview,
 * the operations posture, the live candidates (ranked from the registry as it is now, without
 * starting anything), the cycle list and a cycle's detail, and the short summary. They read the
 * stored cycles, the scheduler and the runs; none of them takes the gate or writes.
 */

import type { Clock } from '../clock.js';
import { notFound } from '../domain/errors.js';
import type { StateStore } from '../store/types.js';
import { getCatalogEntry } from '../runtime/catalog.js';
import { CANDIDATES_KEPT } from './cycle-planning.js';
import type { CycleStore } from './cycle-store.js';
import type { PlannerContextReader } from './planner-context.js';
import { rankCandidates, selectCandidate, type Candidate } from './planner.js';
import type { RegistryLoad } from './registry.js';
import type { RegistrySource } from './registry-source.js';
import { LIVE_RUN_STATUSES, type RunStatusReader } from './run-status.js';
import type { SchedulerControl } from './scheduler-control.js';

export interface BusinessViewDeps {
  store: StateStore;
  cycles: CycleStore;
  clock: Clock;
  registry: RegistrySource;
  plannerContext: PlannerContextReader;
  runStatus: RunStatusReader;
  schedulerView: SchedulerControl['schedulerView'];
}

export function createBusinessViews(deps: BusinessViewDeps) {
  const { store, cycles, clock, runStatus, schedulerView } = deps;

  async function liveCandidates() {
    const registry = await deps.registry.load();
    if (registry.status !== 'ok') return { registry, candidates: [] as Candidate[], wouldSelect: null as Candidate | null };
    const candidates = rankCandidates(registry.registry, await deps.plannerContext());
    return { registry, candidates, wouldSelect: selectCandidate(candidates) };
  }

  function registrySummary(registry: RegistryLoad) {
    const path = deps.registry.name();
    if (registry.status !== 'ok') {
      return { path, status: registry.status, schemaVersion: null, fingerprint: registry.fingerprint, problems: registry.problems, counts: null };
    }
    const r = registry.registry;
    return {
      path,
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
        worker && LIVE_RUN_STATUSES.has(worker.status)
          ? { runId: worker.runId, type: worker.type, status: worker.status, agentId: getCatalogEntry(worker.type)?.agentId ?? null }
          : null,
      // The planner ranks deterministically and calls no model: there is no model evidence to show.
      selectedModel: { value: null, reason: 'the planner is deterministic and calls no model; no model evidence is available' },
      approvalGatedCandidates: candidates
        .filter((c) => c.disposition === 'approval-gated')
        .map((c) => ({ candidateId: c.candidateId, kind: c.action.kind, title: c.title, reason: c.dispositionReason })),
    };
  }

  async function candidates() {
    const { registry, candidates: ranked, wouldSelect } = await liveCandidates();
    return {
      generatedAt: clock.now().toISOString(),
      registry: registrySummary(registry),
      count: ranked.length,
      wouldSelect: wouldSelect?.candidateId ?? null,
      candidates: ranked,
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

  return { overview, operations, candidates, listCycles, summary, cycleDetail };
}
