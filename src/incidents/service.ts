import type { Logger } from 'pino';
import type { Identity } from '../domain/identity.js';
import type { Admit } from '../runtime/admission.js';
import type { CheckedTaskRequest, TaskRequest } from '../runtime/payload-validation.js';
import type { RunRecord } from '../domain/run-record.js';
import { checkSignedDelivery, type SignedDelivery, type SignatureCheck } from './alert-signature.js';
import { alertChanges, type AlertmanagerBody } from './alertmanager.js';
import { createDerivedSignals, type DerivedSignalDeps } from './derived-signals.js';
import { incidentIdFor } from './fingerprint.js';
import { createConditionCheck } from './incident-condition.js';
import type { IncidentLedger } from './ledger.js';
import { remediateIncident, type RemediationRequest } from './manual-remediation.js';
import { createIncidentReadPort } from './read-model.js';
import { applyPolicyAction, planPolicyActions, type TaskAdmission } from './policy.js';
import { INCIDENT_LINK_KEY, incidentLinkOf, runSignal } from './sources.js';
import { createIncidentSweep } from './sweep.js';
import { isSettledTask, runServesTask, withRunOutcome } from './task-sync.js';
import { awaitsVerdict, verdictOf, withVerdict } from './verification.js';
import type { IncidentRecord, IncidentSignal } from './types.js';

/** Least time between two sweeps started by run settles (the timer sweeps regardless). */
const SETTLE_SWEEP_GAP_MS = 5000;

/** The derived sources' deps (store, coordination, clock, service gaps, backlog thresholds, knowledge health) and the service's own. */
export interface IncidentServiceDeps extends DerivedSignalDeps {
  ledger: IncidentLedger;
  admit: Admit;
  /** The trigger check every admission path passes (catalog, reserved fields, payload schema, workspace scopes, the lane's own check). */
  checkTaskRequest: (request: TaskRequest) => CheckedTaskRequest;
  logger: Logger;
  webhookSecret: string;
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
    // The check every admission path passes (the link key is the service's own, added after it).
    const { [INCIDENT_LINK_KEY]: link, ...request } = payload;
    deps.checkTaskRequest({ type, payload: request });
    const outcome = await deps.admit({ type, payload: { ...request, [INCIDENT_LINK_KEY]: link }, source: 'system', requestedBy: 'incident-policy', forceRunId: key });
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

  const derivedSignals = createDerivedSignals(deps);
  const checkCondition = createConditionCheck({ store, derivedSignals });

  /**
   * Folds what a run says into the incident's task it serves, under the incident's lock; a
   * verifier whose run succeeded is then judged against the incident's own condition.
   */
  async function recordRunOutcome(incidentId: string, run: RunRecord): Promise<void> {
    const now = clock.now();
    await ledger.mutate(incidentId, async (current) => {
      if (!current) return null;
      const folded = withRunOutcome(current, run, now) ?? current;
      const task = folded.remediationTasks.find((t) => runServesTask(t, run));
      if (!task || task.episode !== folded.episode || !awaitsVerdict(task)) return folded === current ? null : folded;
      return withVerdict(folded, task.taskId, verdictOf(task, run, await checkCondition(folded), now), now);
    });
  }

  /** Re-reads the runs of unsettled remediation tasks (for settles the hook did not see, approvals) and of unjudged verifiers. */
  async function syncTasks(incidentId: string): Promise<void> {
    const record = await ledger.get(incidentId);
    const pending = record?.remediationTasks.filter((t) => !isSettledTask(t) || awaitsVerdict(t)) ?? [];
    for (const task of pending) {
      const held = await store.getRun(task.runId);
      const run = held?.approval.replayRunId ? ((await store.getRun(held.approval.replayRunId)) ?? held) : held;
      if (run) await recordRunOutcome(incidentId, run);
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
      await recordRunOutcome(linked, run);
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

  const sweep = createIncidentSweep({ ledger, store, logger, derivedSignals, checkCondition, syncTasks, runPolicies });

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
