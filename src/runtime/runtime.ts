import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { CacheInvalidator } from '../domain/cache-invalidation.js';
import type { Identity } from '../domain/identity.js';
import type { RunRecord } from '../domain/run-record.js';
import type { WakeSignal } from '../domain/wake-signal.js';
import type { SecretRedactor } from '../redaction/known-secrets.js';
import type { RunQuery, StateStore } from '../store/types.js';
import type { ServiceTracer } from '../tracing/service-tracer.js';
import type { WorkerSpawner } from './worker-port.js';
import type { AdmissionOutcome, Admit } from './admission.js';
import type { ApprovalEscalation } from './approval-expiry.js';
import type { ApprovalPolicy } from './approval-policy.js';
import { createApprovals } from './approvals.js';
import type { ExecutorDeps } from './executor.js';
import type { LaneRegistry } from './lanes.js';
import type { TaskRequest } from './payload-validation.js';
import { requestedPlacement } from './placement-schema.js';
import { requestedTags } from './tags-schema.js';
import { queueHoldOf, queueHoldsOf } from './queue-hold.js';
import { queueView } from './queue-view.js';
import { debouncedAdmission, refuseDebounceWithIdempotencyKey } from './debounce.js';
import { recoverInterruptedRuns, type RecoveryDeps } from './recovery.js';
import { createBulkActions } from './bulk-actions.js';
import { createRerun } from './rerun.js';
import { createRunCancel } from './run-cancel.js';
import { Runner, type RunnerDeps } from './runner.js';
import { decodeRunCursor, encodeRunCursor } from './run-cursor.js';
import { checkCreatedRange } from './run-time-range.js';
import { toRunView } from './run-view.js';
import { replaceLimits, type LimitsChange } from './limits-reload.js';
import { readLimits } from '../config/load.js';
import { conflict, DomainError } from '../domain/errors.js';
import type { TriggerCheck } from './trigger-check.js';

export interface RuntimeDeps {
  config: Pick<AppConfig, 'concurrency' | 'typeConcurrency' | 'retry' | 'runLeaseMs' | 'workspaceRoot'> & Partial<Pick<AppConfig, 'limits' | 'configFile'>>;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  /** The one admission path (src/runtime/admission.ts), built before the runtime so every module can admit. */
  admit: Admit;
  /** Notified by the admission path whenever a run became claimable. */
  readyRuns: WakeSignal;
  checkTrigger: TriggerCheck;
  lanes: LaneRegistry;
  spawner: WorkerSpawner;
  ownerId: string;
  preflightToolGate?: ExecutorDeps['preflightToolGate'];
  /** Config approvalPolicy, resolved (src/runtime/approval-policy.ts); absent: the built-in policy. */
  approvalPolicy?: ApprovalPolicy;
  /** Opens the incident of an approval that expired under `onExpiry: "escalate"` (the incidents module). */
  approvalEscalation?: ApprovalEscalation;
  runLogs?: ExecutorDeps['runLogs'];
  modelChannel?: ExecutorDeps['modelChannel'];
  modelGateway?: ExecutorDeps['modelGateway'];
  /**
   * Told of every finalized attempt (success, failed or retrying), after the lane's own
   * `afterFinish`: signal sources (incidents, milestones, retention) listen here.
   */
  runListeners?: ReadonlyArray<(run: RunRecord) => Promise<void> | void>;
  /**
   * Told of every run that ended (finished, cancelled) and of every approval decision: flows
   * promote the dependents here (src/flows/). Its failure is logged; the flows' sweep repairs it.
   */
  onRunSettled?: (run: RunRecord) => Promise<void>;
  /** Spans of each attempt (queue wait, execution, finalize); absent: tracing off. */
  tracer?: ServiceTracer;
  /**
   * Replaces the service's own secrets in what runs keep besides their payload (admission's):
   * results and errors at finalize, approval notes, cancel reasons (src/redaction/).
   */
  redact?: Pick<SecretRedactor, 'value'>;
  /** Why this instance cannot run a claimed run (src/runtime/runner.ts); absent: it can run every run of a type it knows. */
  cannotRunHere?: RunnerDeps['cannotRunHere'];
}

/** Runs waiting in the queue right now (ready + held). */
export async function queueDepthOf(store: StateStore): Promise<number> {
  const counts = await store.countRuns(true);
  return counts.ready + counts.held;
}

/**
 * The task runtime: the runner, approvals, workflows, retries and restart recovery, composed
 * over the state store and the one admission path. It knows task types only through the
 * catalog and the lane registry.
 */
export function createTaskRuntime(deps: RuntimeDeps) {
  const { store, clock, logger, config, admit, checkTrigger } = deps;
  /** What the runner and restart recovery both work over. */
  const shared = { config, store, clock, logger, invalidator: deps.invalidator, admit };
  /**
   * A child run (`workflowParent`) settled: its parent's lane moves on (the workflow lane admits
   * the next step). The runtime knows parents and children, never which lanes have them.
   */
  async function tellParent(run: RunRecord): Promise<void> {
    if (!run.workflowParent) return;
    const parent = await store.getRun(run.workflowParent.runId);
    const afterChildFinish = parent ? deps.lanes.get(parent.type).afterChildFinish : undefined;
    if (afterChildFinish) await tell(run, afterChildFinish, 'lane after-child-finish hook');
  }

  const approvals = createApprovals({
    store,
    clock,
    invalidator: deps.invalidator,
    admit,
    lanes: deps.lanes,
    policy: deps.approvalPolicy,
    escalation: deps.approvalEscalation,
    logger,
    onDecided: async (run) => {
      await tellParent(run);
      if (deps.onRunSettled) await tell(run, deps.onRunSettled, 'run-settled listener');
    },
    redact: deps.redact,
  });
  const rerun = createRerun({ store, admit, checkTrigger, invalidator: deps.invalidator });

  /** A listener's failure must not undo the run's own finalization: it is logged and the next one runs. */
  async function tell(run: RunRecord, listener: (run: RunRecord) => Promise<void> | void, what: string): Promise<void> {
    try {
      await listener(run);
    } catch (err) {
      logger.error({ err, runId: run.runId, type: run.type }, `${what} failed`);
    }
  }

  async function onRunFinished(run: RunRecord): Promise<void> {
    await tellParent(run);
    if (deps.onRunSettled) await tell(run, deps.onRunSettled, 'run-settled listener');
    const afterFinish = deps.lanes.get(run.type).afterFinish;
    if (afterFinish) await tell(run, afterFinish, 'lane after-finish hook');
    for (const listener of deps.runListeners ?? []) await tell(run, listener, 'run-finished listener');
  }

  const runner = new Runner({
    ...shared,
    ownerId: deps.ownerId,
    leaseMs: config.runLeaseMs,
    pollIntervalMs: 1000,
    onRunFinished,
    lanes: deps.lanes,
    spawner: deps.spawner,
    preflightToolGate: deps.preflightToolGate,
    runLogs: deps.runLogs,
    tracer: deps.tracer,
    modelChannel: deps.modelChannel,
    modelGateway: deps.modelGateway,
    redact: deps.redact,
    cannotRunHere: deps.cannotRunHere,
  });
  deps.readyRuns.subscribe(() => runner.wake());
  const cancels = createRunCancel({
    store,
    clock,
    logger,
    invalidator: deps.invalidator,
    stopLocal: (runId) => runner.stopCancelled(runId),
    onRunFinished,
    settleEscalation: (run) => approvals.expiry.settleEscalation(run),
    redact: deps.redact,
  });

  /** Checks a client's task request (checkTrigger, then the lane's requesterCheck) and admits it; `traceparent`: the request's span. */
  async function trigger(request: TaskRequest, identity: Identity, traceparent?: string | null): Promise<AdmissionOutcome> {
    if (request.debounce) refuseDebounceWithIdempotencyKey(request.payload);
    const checked = checkTrigger(request);
    await deps.lanes.get(checked.type).requesterCheck?.(checked.payload, identity);
    return admit({
      ...(request.debounce ? debouncedAdmission(request.debounce, clock.now()) : {}),
      type: checked.type,
      payload: checked.payload,
      source: 'api',
      requestedBy: identity.actor,
      traceparent,
      placement: requestedPlacement(request),
      ...requestedTags(request),
    });
  }

  async function listRuns(query: RunQuery & { cursor?: string }) {
    const { cursor, ...filters } = query;
    checkCreatedRange(filters.createdFrom, filters.createdTo);
    const limit = filters.limit ?? 50;
    const offset = filters.offset ?? 0;
    const afterSeq = cursor === undefined ? undefined : decodeRunCursor(cursor);
    const { items, total } = await store.listRuns({ ...filters, limit, offset, afterSeq });
    const last = items[items.length - 1];
    const nextCursor = items.length === limit && last ? encodeRunCursor(last.seq) : null;
    // A ready run names the limit that holds it back, as the run view does: one read for the page.
    const holds = await queueHoldsOf(store, config, items, clock.now());
    return { items: items.map((run, i) => ({ ...toRunView(run), heldBy: holds[i]! })), total, limit, offset, nextCursor };
  }

  /** Tool-gate evidence of the newest runs that carry it (the skills telemetry and audit read it). */
  async function toolGateEvidence(window = 500) {
    const { items } = await store.listRuns({ includeInternal: true, limit: window });
    return items.flatMap((run) =>
      run.toolGate
        ? [{ runId: run.runId, taskType: run.type, agentId: run.toolGate.preflight.agentId, preflight: run.toolGate.preflight, execute: run.toolGate.execute }]
        : [],
    );
  }

  /**
   * Config `limits` read again from the config file (POST /api/limits/reload, SIGHUP;
   * docs/queue.md) and put in force for the next claim. A file that does not load is a conflict
   * and changes nothing. The runner is woken: a raised cap may let waiting runs start now.
   */
  function reloadLimits(): LimitsChange {
    let next;
    try {
      next = readLimits(config.configFile ?? null);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'invalid_config') throw conflict(`limits not reloaded: ${err.message}`);
      throw err;
    }
    const change = replaceLimits((config.limits ??= []), next);
    logger.info({ added: change.added, removed: change.removed, changed: change.changed }, 'limits reloaded');
    runner.wake();
    return change;
  }

  async function getRun(runId: string) {
    const run = await store.getRun(runId);
    if (!run) return null;
    // A ready run names the limit that holds it back, if one does (docs/queue.md).
    return { ...toRunView(run), heldBy: await queueHoldOf(store, config, run, clock.now()) };
  }

  const recoveryDeps: RecoveryDeps = {
    ...shared,
    onRunFinished,
    tracer: deps.tracer,
    heldHere: (runId, attempt) => runner.holds(runId, attempt),
    redact: deps.redact,
  };
  let leaseSweep: NodeJS.Timeout | null = null;
  let sweeping = false;

  /**
   * On a shared store an instance can die at any time, not only before this one starts: the
   * runs it held are taken over once their lease expires, checked twice per lease period.
   */
  function startLeaseSweep(): void {
    if (store.exclusive) return;
    leaseSweep = setInterval(() => {
      if (sweeping) return;
      sweeping = true;
      recoverInterruptedRuns(recoveryDeps)
        .then((recovered) => {
          if (recovered.requeued + recovered.failed + recovered.finished + recovered.cancelled > 0) {
            logger.warn(recovered, 'took over runs whose lease expired');
            runner.wake();
          }
        })
        .catch((err: unknown) => logger.error({ err }, 'expired lease recovery failed'))
        .finally(() => {
          sweeping = false;
        });
    }, Math.max(500, Math.floor(config.runLeaseMs / 2)));
    leaseSweep.unref();
  }

  /** Restart recovery, then start claiming work. */
  async function start(): Promise<void> {
    const recovered = await recoverInterruptedRuns(recoveryDeps);
    const approvalsRepaired = await approvals.recover();
    for (const lane of deps.lanes.withHook('atStart')) await lane.atStart();
    if (recovered.requeued + recovered.failed + recovered.finished + recovered.cancelled + approvalsRepaired > 0) {
      logger.warn({ ...recovered, approvalsRepaired }, 'restart recovery finished');
    }
    runner.start();
    startLeaseSweep();
    approvals.expiry.start();
  }

  async function stop(graceMs = 5000): Promise<void> {
    if (leaseSweep) clearInterval(leaseSweep);
    await approvals.expiry.stop();
    await runner.stop(graceMs);
  }

  return {
    admit,
    checkTrigger,
    trigger,
    listRuns,
    /** The queue by limit bucket and key (GET /api/queue). */
    queue: () => queueView(store, config, clock.now()),
    reloadLimits,
    getRun,
    toolGateEvidence,
    approvals,
    rerun,
    /** An operator's cancel of a run (src/runtime/run-cancel.ts). */
    cancelRun: cancels.cancel,
    /** Cancel and rerun of many runs, each through the single-run path (src/runtime/bulk-actions.ts). */
    bulk: createBulkActions({ store, cancel: cancels.cancel, rerun }),
    start,
    stop,
    activeCount: () => runner.activeCount,
    /** A free run slot for an admission (Runner.reserveSlot); wired into the admission once the runner exists. */
    reserveSlot: (type: string, concurrencyKey: string | null) => runner.reserveSlot(type, concurrencyKey),
  };
}

export type TaskRuntime = ReturnType<typeof createTaskRuntime>;
