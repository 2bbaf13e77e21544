import type { Logger } from 'pino';
import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { Clock } from '../clock.js';
import type { Coordination } from '../coordination/types.js';
import type { Identity } from '../domain/identity.js';
import type { StateStore } from '../store/types.js';
import type { Admit } from '../tasks/admission.js';
import type { CheckedTaskRequest, TaskRequest } from '../tasks/payload-validation.js';
import type { RunRecord } from '../domain/run-record.js';
import { checkSignedDelivery, type SignedDelivery, type SignatureCheck } from './alert-signature.js';
import { alertChanges, type AlertmanagerBody } from './alertmanager.js';
import { incidentIdFor } from './fingerprint.js';
import type { IncidentLedger } from './ledger.js';
import { remediateIncident, type RemediationRequest } from './manual-remediation.js';
import { createIncidentReadPort } from './read-model.js';
import { applyPolicyAction, planPolicyActions, type TaskAdmission } from './policy.js';
import { incidentLinkOf, runSignal, type ApprovalBacklogThresholds, type KnowledgeHealth } from './sources.js';
import { createIncidentSweep } from './sweep.js';
import { isSettledTask, withRunOutcome } from './task-sync.js';
import type { IncidentRecord, IncidentSignal } from './types.js';

/** Least time between two sweeps started by run settles (the timer sweeps regardless). */
const SETTLE_SWEEP_GAP_MS = 5000;

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
  /** Staleness and contradictions of the knowledge index, swept like the other derived sources. */
  knowledgeHealth?: () => Promise<KnowledgeHealth>;
}

export { REMEDIATION_TASK_TYPES, type RemediationRequest, type RemediationTaskType } from './manual-remediation.js';

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
    const why = run.status === 'cancelled' ? `run ${run.runId} was cancelled by ${run.cancellation?.requestedBy ?? 'an operator'}` : `run ${run.runId} succeeded on attempt ${run.attempt}`;
    if ('resolve' in change) await ledger.resolveSignal(change.resolve, why, `run:${run.runId}`);
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

  const sweep = createIncidentSweep({ ...deps, syncTasks, runPolicies });

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

  const remediate = (incidentId: string, request: RemediationRequest, identity: Identity) => remediateIncident(deps, incidentId, request, identity);

  return { ledger, readPort: createIncidentReadPort(ledger), runPolicies, onRunSettled, handleRunSettled, sweep: sweepOnce, startSweeps, remediate, checkAlertDelivery, ingestAlerts, reportSignal: reportAndAct };
}

export type IncidentService = ReturnType<typeof createIncidentService>;
