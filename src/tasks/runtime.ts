import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import { CacheTags, type CacheInvalidator } from '../domain/cache-invalidation.js';
import { DomainError } from '../domain/errors.js';
import type { Identity } from '../domain/identity.js';
import type { RunQuery, StateStore } from '../store/types.js';
import { checkPayloadScopes } from '../workspace/boundary.js';
import type { WorkerSpawner } from '../workers/spawn-worker.js';
import { createAdmission, type AdmissionOutcome } from './admission.js';
import { MILESTONE_RETENTION, milestoneForRun } from '../proof/milestones.js';
import { createApprovals } from './approvals.js';
import { communityRecordsOf } from './community-records.js';
import type { ExecutorDeps } from './executor.js';
import type { TaskHandler } from './handler-types.js';
import { checkTaskRequest, type CheckedTaskRequest, type TaskRequest } from './payload-validation.js';
import { recoverInterruptedRuns } from './recovery.js';
import { admitDueRetries } from './retry-scanner.js';
import { Runner } from './runner.js';
import { decodeRunCursor, encodeRunCursor } from './run-cursor.js';
import { toRunView } from './run-view.js';
import { createWorkflowDriver } from './workflow-driver.js';
import type { RunRecord } from '../domain/run-record.js';

export interface RuntimeDeps {
  config: AppConfig;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  invalidator: CacheInvalidator;
  handlers: Record<string, TaskHandler>;
  spawner: WorkerSpawner;
  ownerId: string;
  serviceStartedAt: Date;
  controlPlaneSnapshot?: ExecutorDeps['controlPlaneSnapshot'];
  preflightToolGate?: ExecutorDeps['preflightToolGate'];
  communityResponseGate?: ExecutorDeps['communityResponseGate'];
  /** Called after every finalized attempt (the knowledge repair loop records drift-repair outcomes). */
  onRunFinished?: (run: RunRecord) => Promise<void>;
  /** Told of every finalized attempt (success, failed, or retrying); signal sources such as incidents listen here. */
  onRunSettled?: (run: RunRecord) => void;
}

const TELEMETRY_RETENTION = 5000;

/**
 * The task runtime: one admission path, the runner, approvals, retries and restart recovery,
 * composed over the state store.
 */
export function createTaskRuntime(deps: RuntimeDeps) {
  const { store, clock, logger, config } = deps;
  let runner: Runner | null = null;
  const admit = createAdmission({
    store,
    clock,
    invalidator: deps.invalidator,
    onReady: () => runner?.wake(),
    telemetryRetention: TELEMETRY_RETENTION,
  });
  const queueDepth = async () => {
    const counts = await store.countRuns(true);
    return counts.ready + counts.held;
  };
  const workflows = createWorkflowDriver({
    store,
    logger,
    invalidator: deps.invalidator,
    admit,
    workspaceRoot: config.workspaceRoot,
    now: () => clock.now(),
  });
  const approvals = createApprovals({ store, clock, invalidator: deps.invalidator, admit, onDecided: workflows.onRunFinished });

  async function onRunFinished(run: RunRecord): Promise<void> {
    await workflows.onRunFinished(run);
    deps.onRunSettled?.(run);
    if (deps.onRunFinished) {
      // A listener's failure must not undo the run's own finalization.
      await deps.onRunFinished(run).catch((err: unknown) => logger.error({ err, runId: run.runId }, 'run-finished listener failed'));
    }
    const milestone = milestoneForRun(run, clock.now());
    if (milestone) await store.append('milestones', milestone, MILESTONE_RETENTION);
    const records = communityRecordsOf(run);
    if (records.length > 0) {
      await store.mutateState((state) => ({ ...state, communityResponses: [...state.communityResponses, ...records] }));
    }
    if (milestone || records.length > 0) await deps.invalidator.invalidate([CacheTags.proof]);
  }

  runner = new Runner({
    config,
    store,
    clock,
    logger,
    invalidator: deps.invalidator,
    admit,
    ownerId: deps.ownerId,
    leaseMs: config.runLeaseMs,
    pollIntervalMs: 1000,
    onRunFinished,
    handlers: deps.handlers,
    spawner: deps.spawner,
    serviceStartedAt: deps.serviceStartedAt,
    queueDepth,
    controlPlaneSnapshot: deps.controlPlaneSnapshot,
    preflightToolGate: deps.preflightToolGate,
    communityResponseGate: deps.communityResponseGate,
  });

  /** Checks a client's task request against the catalog and schema and confines its scopes to the workspace. */
  function checkTrigger(request: TaskRequest): CheckedTaskRequest {
    const checked = checkTaskRequest(request);
    const scopeProblems = checkPayloadScopes(checked.entry, checked.payload, config.workspaceRoot);
    if (scopeProblems.length > 0) {
      throw new DomainError('scope_outside_workspace', 'task scope is outside the workspace', scopeProblems);
    }
    return checked;
  }

  /** Checks a client's task request (checkTrigger) and admits it. */
  async function trigger(request: TaskRequest, identity: Identity): Promise<AdmissionOutcome> {
    const checked = checkTrigger(request);
    return admit({ type: checked.type, payload: checked.payload, source: 'api', requestedBy: identity.actor });
  }

  async function listRuns(query: RunQuery & { cursor?: string }) {
    const { cursor, ...filters } = query;
    const limit = filters.limit ?? 50;
    const offset = filters.offset ?? 0;
    const afterSeq = cursor === undefined ? undefined : decodeRunCursor(cursor);
    const { items, total } = await store.listRuns({ ...filters, limit, offset, afterSeq });
    const last = items[items.length - 1];
    const nextCursor = items.length === limit && last ? encodeRunCursor(last.seq) : null;
    return { items: items.map(toRunView), total, limit, offset, nextCursor };
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

  async function getRun(runId: string) {
    const run = await store.getRun(runId);
    return run ? toRunView(run) : null;
  }

  const recoveryDeps = { config, store, clock, logger, invalidator: deps.invalidator, admit, onRunFinished };
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
          if (recovered.requeued + recovered.failed + recovered.finished > 0) {
            logger.warn(recovered, 'took over runs whose lease expired');
            runner?.wake();
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
    await workflows.reconcile();
    if (recovered.requeued + recovered.failed + recovered.finished + approvalsRepaired > 0) {
      logger.warn({ ...recovered, approvalsRepaired }, 'restart recovery finished');
    }
    runner!.start();
    startLeaseSweep();
  }

  async function stop(graceMs = 5000): Promise<void> {
    if (leaseSweep) clearInterval(leaseSweep);
    await runner!.stop(graceMs);
  }

  return {
    admit,
    checkTrigger,
    trigger,
    listRuns,
    getRun,
    toolGateEvidence,
    approvals,
    queueDepth,
    start,
    stop,
    admitDueRetries: () => admitDueRetries({ store, clock, admit, logger }),
    activeCount: () => runner!.activeCount,
  };
}

export type TaskRuntime = ReturnType<typeof createTaskRuntime>;
