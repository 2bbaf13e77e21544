import type { Logger } from 'pino';
import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../tasks/admission.js';
import type { CheckedTaskRequest, TaskRequest } from '../tasks/payload-validation.js';
import type { RunRecord } from '../tasks/types.js';
import { checkSignedDelivery, type SignedDelivery, type SignatureCheck } from './alert-signature.js';
import { alertChanges, type AlertmanagerBody } from './alertmanager.js';
import { Fingerprints, incidentIdFor } from './fingerprint.js';
import type { IncidentLedger } from './ledger.js';
import { createIncidentReadPort } from './read-model.js';
import { applyPolicyAction, planPolicyActions, type TaskAdmission } from './policy.js';
import { keepNewest, normalize, withHistory } from './record.js';
import {
  approvalBacklogSignal,
  coordinationSignal,
  DEFAULT_APPROVAL_BACKLOG,
  INCIDENT_LINK_KEY,
  incidentLinkOf,
  runSignal,
  serviceGapSignalOf,
  stateStoreSignal,
  type ApprovalBacklogThresholds,
} from './sources.js';
import { isSettledTask, withRunOutcome } from './task-sync.js';
import { INCIDENT_BOUNDS, type IncidentRecord, type IncidentSignal, type IncidentSource } from './types.js';

/** Manual remediation lanes (the spec's allowlist). */
export const REMEDIATION_TASK_TYPES = ['drift-repair', 'build-refactor', 'qa-verification', 'system-monitor'] as const;
export type RemediationTaskType = (typeof REMEDIATION_TASK_TYPES)[number];

/** Bounds a manual build-refactor remediation always carries, whatever the operator sent. */
export const MANUAL_CHANGE_MAX_FILES = 10;

/** Sources whose incidents the sweep resolves when the signal is gone. */
const SWEPT_SOURCES = new Set<IncidentSource>(['service-gap', 'approval-backlog', 'persistence', 'coordination']);
/** Least time between two sweeps started by run settles (the timer sweeps regardless). */
const SETTLE_SWEEP_GAP_MS = 5000;
/** Failed and retrying runs the sweep re-reads (newest first): catches a settle the hook missed. */
const RUN_SCAN_WINDOW = 50;

export interface IncidentServiceDeps {
  ledger: IncidentLedger;
  admit: Admit;
  /** The trigger route's request check (catalog, reserved fields, payload schema, workspace scopes). */
  checkTaskRequest: (request: TaskRequest) => CheckedTaskRequest;
  store: StateStore;
  coordination: Coordination;
  clock: Clock;
  logger: Logger;
  webhookSecret: string;
  serviceGaps: () => ServiceGapSignal[];
  approvalBacklog?: ApprovalBacklogThresholds;
}

export interface RemediationRequest {
  taskType: RemediationTaskType;
  payload?: Record<string, unknown>;
  note?: string;
}

/**
 * The incident service around the ledger: the sources (run settles, the periodic sweep of
 * derived signals, signed alerts), the policies that act on open incidents, and manual
 * remediation. Every task it starts goes through the one admission function.
 */
export function createIncidentService(deps: IncidentServiceDeps) {
  const { ledger, store, clock, logger } = deps;

  async function admitTask(type: string, payload: Record<string, unknown>, key: string): Promise<TaskAdmission> {
    const outcome = await deps.admit({ type, payload, source: 'system', requestedBy: 'incident-policy', forceRunId: key });
    return {
      runId: outcome.run.runId,
      taskId: outcome.run.taskId,
      duplicate: outcome.kind === 'duplicate',
      held: outcome.run.queueState === 'held',
    };
  }

  /**
   * Lets the policies act on one incident: plans from the stored facts and records each act, all
   * under the incident's lock. Task keys are stable, so a second firing (here or on another
   * instance) meets a duplicate admission and the act already recorded.
   */
  async function runPolicies(incidentId: string): Promise<IncidentRecord | null> {
    return ledger.mutate(incidentId, async (current) => {
      if (!current) return null;
      const now = clock.now();
      let next = current;
      let changed = false;
      for (const action of planPolicyActions(current, now)) {
        let admission: TaskAdmission | null = null;
        const task = action.action === 'assign-owner' ? null : action.task;
        if (task) {
          try {
            admission = await admitTask(task.taskType, task.payload, task.idempotencyKey);
          } catch (err) {
            logger.error({ err, incidentId, action: action.action }, 'incident policy could not admit its task');
            continue;
          }
        }
        next = applyPolicyAction(next, action, admission, now);
        changed = true;
      }
      return changed ? next : null;
    });
  }

  /** Re-reads the runs of unsettled remediation tasks (for settles the hook did not see, approvals). */
  async function syncTasks(incidentId: string): Promise<void> {
    const record = await ledger.get(incidentId);
    const pending = record?.remediationTasks.filter((t) => !isSettledTask(t)) ?? [];
    for (const task of pending) {
      const held = await store.getRun(task.runId);
      const run = held?.approval.replayRunId ? ((await store.getRun(held.approval.replayRunId)) ?? held) : held;
      if (!run) continue;
      const now = clock.now();
      await ledger.mutate(incidentId, (current) => (current ? withRunOutcome(current, run, now) : null));
    }
  }

  async function reportAndAct(signal: IncidentSignal): Promise<IncidentRecord> {
    const record = await ledger.reportSignal(signal);
    return (await runPolicies(record.incidentId)) ?? record;
  }

  /** What one settled run means: its remediation task's progress, or its own lineage's incident. */
  async function handleRunSettled(run: RunRecord): Promise<void> {
    const linked = incidentLinkOf(run);
    if (linked) {
      const now = clock.now();
      await ledger.mutate(linked, (current) => (current ? withRunOutcome(current, run, now) : null));
      await runPolicies(linked);
      return;
    }
    const change = runSignal(run);
    if (!change) return;
    if ('resolve' in change) await ledger.resolveSignal(change.resolve, `run ${run.runId} succeeded on attempt ${run.attempt}`, `run:${run.runId}`);
    else await reportAndAct(change.signal);
  }

  let settleChain: Promise<void> = Promise.resolve();
  let lastSweepAt = 0;
  /**
   * Called by the runtime after every finalized attempt; handled in order, off the runner's path.
   * A settle also refreshes the derived sources, at most once per SETTLE_SWEEP_GAP_MS.
   */
  function onRunSettled(run: RunRecord): void {
    settleChain = settleChain
      .then(() => handleRunSettled(run))
      .catch((err: unknown) => logger.error({ err, runId: run.runId }, 'incident signal from a settled run failed'));
    if (Date.now() - lastSweepAt >= SETTLE_SWEEP_GAP_MS) void settleChain.then(sweepOnce);
  }

  async function derivedSignals(): Promise<IncidentSignal[]> {
    const signals: IncidentSignal[] = deps.serviceGaps().map(serviceGapSignalOf);
    const held = await store.listRuns({ queueState: 'held', includeInternal: true, limit: 1, order: 'oldest' });
    const oldest = held.items[0];
    const backlog = approvalBacklogSignal(held.total, oldest?.approval.requestedAt ?? oldest?.createdAt ?? null, clock.now(), deps.approvalBacklog ?? DEFAULT_APPROVAL_BACKLOG);
    if (backlog) signals.push(backlog);
    const storeSignal = stateStoreSignal(await store.health());
    if (storeSignal) signals.push(storeSignal);
    const coordination = coordinationSignal(await deps.coordination.status());
    if (coordination) signals.push(coordination);
    return signals;
  }

  /**
   * A run lineage's incident clears when the run itself succeeded after all, or when a later run
   * of the same type succeeded (the lane works again).
   */
  async function resolveRecoveredRun(record: IncidentRecord): Promise<void> {
    const run = await store.getRun(record.fingerprint.slice(Fingerprints.run('').length));
    if (!run) return;
    if (run.status === 'success') {
      await ledger.resolveSignal(record.fingerprint, `run ${run.runId} succeeded on attempt ${run.attempt}`, 'incident-sweep');
      return;
    }
    const newest = (await store.listRuns({ type: run.type, status: 'success', includeInternal: true, limit: 1 })).items[0];
    if (newest && newest.createdAt > (run.finishedAt ?? run.updatedAt)) {
      await ledger.resolveSignal(record.fingerprint, `a later ${run.type} run (${newest.runId}) succeeded`, 'incident-sweep');
    }
  }

  /**
   * One sweep: reports the derived signals present now and resolves the swept incidents whose
   * signal is gone; re-reads recent failed and retrying runs; then lets the policies act on every
   * open incident (owner, remediation, retry, verifier, escalation on SLA breach).
   */
  async function sweep(): Promise<void> {
    const existing = new Map((await ledger.all()).map((r) => [r.fingerprint, r]));
    const present = await derivedSignals();
    const presentKeys = new Set(present.map((s) => s.fingerprint));
    for (const signal of present) await guarded(incidentIdFor(signal.fingerprint), () => ledger.reportSignal(signal));
    for (const record of existing.values()) {
      if (record.status !== 'resolved' && SWEPT_SOURCES.has(record.source) && !presentKeys.has(record.fingerprint)) {
        await guarded(record.incidentId, () => ledger.resolveSignal(record.fingerprint, 'signal cleared', 'incident-sweep'));
      }
    }
    const [failed, retrying] = await Promise.all([
      store.listRuns({ status: 'failed', includeInternal: true, limit: RUN_SCAN_WINDOW }),
      store.listRuns({ status: 'retrying', includeInternal: true, limit: RUN_SCAN_WINDOW }),
    ]);
    for (const run of [...retrying.items, ...failed.items]) {
      const known = existing.get(Fingerprints.run(run.runId));
      if (known && (run.status === 'failed' || known.status === 'watching')) continue;
      const change = runSignal(run);
      if (change && 'signal' in change) await guarded(incidentIdFor(change.signal.fingerprint), () => ledger.reportSignal(change.signal));
    }
    for (const record of existing.values()) {
      if (record.source === 'run' && record.status !== 'resolved') await guarded(record.incidentId, () => resolveRecoveredRun(record));
    }
    for (const record of await ledger.all()) {
      if (record.status === 'resolved') continue;
      await guarded(record.incidentId, async () => {
        await syncTasks(record.incidentId);
        await runPolicies(record.incidentId);
      });
    }
  }

  /** One incident's trouble (a busy lock, a failing admission) must not stop the sweep of the others. */
  async function guarded(incidentId: string, work: () => Promise<unknown>): Promise<void> {
    try {
      await work();
    } catch (err) {
      logger.warn({ err, incidentId }, 'incident sweep step failed; retried next sweep');
    }
  }

  let sweeping: Promise<void> | null = null;
  /** A sweep, or the one already running in this process. */
  let stopped = false;
  function sweepOnce(): Promise<void> {
    if (stopped) return Promise.resolve();
    if (!sweeping) lastSweepAt = Date.now();
    sweeping ??= sweep()
      .catch((err: unknown) => logger.error({ err }, 'incident sweep failed'))
      .finally(() => {
        sweeping = null;
      });
    return sweeping;
  }

  /** Starts the periodic sweep; the returned function stops it and waits for work in flight. */
  function startSweeps(intervalMs: number): () => Promise<void> {
    const timer = setInterval(() => void sweepOnce(), intervalMs);
    timer.unref();
    void sweepOnce();
    return async () => {
      stopped = true;
      clearInterval(timer);
      await settleChain;
      await sweeping;
    };
  }

  /**
   * Starts an operator's remediation task for an incident through the trigger path's checks and
   * the one admission function, and links it. A build-refactor is always held for approval and
   * bounded: tests run after the change, at most MANUAL_CHANGE_MAX_FILES files, and its scope is
   * verified by qa-verification once it succeeds.
   */
  async function remediate(incidentId: string, request: RemediationRequest, identity: Identity) {
    await ledger.require(incidentId);
    let payload = { ...(request.payload ?? {}) };
    if (request.taskType === 'build-refactor') {
      const constraints = typeof payload.constraints === 'object' && payload.constraints !== null ? (payload.constraints as Record<string, unknown>) : {};
      const asked = typeof constraints.maxFilesChanged === 'number' ? constraints.maxFilesChanged : MANUAL_CHANGE_MAX_FILES;
      payload = { ...payload, requiresApproval: true, constraints: { ...constraints, runTests: true, maxFilesChanged: Math.min(asked, MANUAL_CHANGE_MAX_FILES) } };
    }
    const checked = deps.checkTaskRequest({ type: request.taskType, payload });
    const outcome = await deps.admit({
      type: checked.type,
      payload: { ...checked.payload, [INCIDENT_LINK_KEY]: incidentId },
      source: 'api',
      requestedBy: identity.actor,
    });
    const run = outcome.run;
    const held = run.queueState === 'held';
    const scope = request.taskType === 'build-refactor' && typeof checked.payload.scope === 'string' ? checked.payload.scope : null;
    const now = clock.now();
    const at = now.toISOString();
    const stored = await ledger.mutate(incidentId, (current) => {
      if (!current || current.remediationTasks.some((t) => t.runId === run.runId)) return null;
      const task = {
        taskId: run.taskId,
        runId: run.runId,
        taskType: request.taskType,
        role: 'manual' as const,
        episode: current.episode,
        verifies: null,
        attempt: 1,
        status: held ? ('awaiting-approval' as const) : ('queued' as const),
        requestedBy: identity.actor,
        requestedAt: at,
        updatedAt: at,
        replayRunId: null,
        note: request.note ?? null,
      };
      const next: IncidentRecord = {
        ...current,
        scope: scope ?? current.scope,
        remediationTasks: keepNewest([...current.remediationTasks, task], INCIDENT_BOUNDS.remediationTasks),
        linkedRunIds: current.linkedRunIds.includes(run.runId) ? current.linkedRunIds : keepNewest([...current.linkedRunIds, run.runId], INCIDENT_BOUNDS.linkedIds),
        updatedAt: at,
      };
      return normalize(
        withHistory(next, {
          at,
          kind: 'remediation-queued',
          actor: identity.actor,
          summary: `${identity.actor} started ${request.taskType} run ${run.runId}${held ? ' (held for approval)' : ''}${request.note ? `: ${request.note}` : ''}`,
          data: { taskId: run.taskId, runId: run.runId, taskType: request.taskType, held },
        }),
      );
    });
    return {
      status: outcome.kind === 'duplicate' ? ('duplicate-suppressed' as const) : held ? ('awaiting-approval' as const) : ('queued' as const),
      incidentId,
      taskType: request.taskType,
      runId: run.runId,
      taskId: run.taskId,
      approvalRequired: run.approval.required,
      remediation: stored?.remediation ?? null,
      verification: stored?.verification ?? null,
    };
  }

  /** The signature and replay check of one alert delivery (nothing is read from the body first). */
  function checkAlertDelivery(delivery: SignedDelivery): Promise<SignatureCheck> {
    return checkSignedDelivery(deps.webhookSecret, delivery, clock.now().getTime(), deps.coordination);
  }

  /** Firing alerts open or update their incident (and the policies act); resolved ones resolve it. */
  async function ingestAlerts(body: AlertmanagerBody) {
    const results: Array<{ fingerprint: string; incidentId: string; change: 'firing' | 'resolved'; status: string }> = [];
    for (const change of alertChanges(body)) {
      if (change.kind === 'firing') {
        const record = await reportAndAct(change.signal);
        results.push({ fingerprint: record.fingerprint, incidentId: record.incidentId, change: 'firing', status: record.status });
      } else {
        const record = await ledger.resolveSignal(change.fingerprint, 'alert resolved', 'alertmanager');
        results.push({ fingerprint: change.fingerprint, incidentId: incidentIdFor(change.fingerprint), change: 'resolved', status: record?.status ?? 'unknown' });
      }
    }
    return { status: 'accepted' as const, received: results.length, incidents: results };
  }

  return { ledger, readPort: createIncidentReadPort(ledger), runPolicies, onRunSettled, handleRunSettled, sweep: sweepOnce, startSweeps, remediate, checkAlertDelivery, ingestAlerts, reportSignal: reportAndAct };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
