import type { Logger } from 'pino';
import { lazyChild } from '../logging.js';
import type { Clock } from '../clock.js';
import { executeEvidence, type ToolGatePreflight } from '../agents/tool-gate.js';
import type { StateStore } from '../store/types.js';
import { teeHandlerLogger } from '../runlogs/handler-log-tee.js';
import type { AttemptLog, AttemptLogOpener } from '../runlogs/types.js';
import { removeWorkerDirectory } from '../common/worker-protocol.js';
import type { WorkerSpawner } from './worker-port.js';
import { noopServiceTracer, type OpenSpan, type ServiceTracer } from '../tracing/service-tracer.js';
import { isOwnedAttempt } from './run-transitions.js';
import type { CatalogEntry } from './catalog.js';
import { DomainError, ProgrammingError, type ErrorCode } from '../domain/errors.js';

/** Error codes of refusals: retrying the attempt cannot change them. */
const REFUSAL_CODES: ReadonlySet<ErrorCode> = new Set(['scope_outside_workspace', 'invalid_request', 'invalid_config', 'forbidden']);
import type { FollowUpTask, HandlerInput, HandlerOutcome } from './handler-types.js';
import type { ModelGateway } from '../models/types.js';
import type { BlockedAttempt, BoundTaskHandler, LaneRegistry } from './lanes.js';
import type { RunRecord, RunToolGate, SpecialistContract } from '../domain/run-record.js';
import type { OrchestratorState } from '../domain/orchestrator-state.js';

/** What executing one attempt produced, independent of how (handler or worker). */
export interface ExecutionOutcome {
  ok: boolean;
  result: unknown;
  error: string | null;
  failureReason: string | null;
  /** Transient failures (crash, timeout, handler exception) may be retried; refusals may not. */
  transient: boolean;
  /** Frees what the attempt kept for recovery (a worker's directory) once its outcome is durable. */
  release?: () => Promise<void>;
  durationMs: number;
  stateUpdate?: (state: OrchestratorState) => OrchestratorState;
  followUps?: FollowUpTask[];
  operatorSummary: string | null;
  recommendedNextActions: string[] | null;
  specialistContract: SpecialistContract | null;
  /** Tool-gated lanes: preflight and execute evidence, recorded on the run. */
  toolGate?: RunToolGate;
  /** Shared coordination refused the attempt before it started (dedupe, budget): why. */
  coordinationBlocked?: string;
  /** A worker stopped by the orchestrator: the strongest signal its processes needed (null: none was left to signal). */
  stopSignal?: 'SIGTERM' | 'SIGKILL' | null;
}

export interface ExecutorDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  /** What each lane registered beyond its catalog entry: handlers and hooks (src/runtime/lanes.ts). */
  lanes: LaneRegistry;
  spawner: WorkerSpawner;
  /** This runner's claim identity: a worker's directory is recorded only while it owns the attempt. */
  ownerId: string;
  /** The tool-gate preflight of a lane's agent (src/agents/tool-gate.ts); absent, no lane is gated. */
  preflightToolGate?: (taskType: string, agentId: string) => ToolGatePreflight;
  /** Keeps what each attempt prints (src/runlogs/); absent, nothing is kept. */
  runLogs?: AttemptLogOpener;
  /** Spans of each attempt's queue wait and execution (src/tracing/); absent: tracing off. */
  tracer?: ServiceTracer;
  /** Opens a worker's per-attempt channel to the model gateway (src/models/channel.ts); absent, workers get none. */
  modelChannel?: { open(run: RunRecord, signal: AbortSignal): Promise<{ input: Record<string, unknown>; close(): void }> };
  /** The model gateway in-process handlers reach through `complete` (src/models/gateway.ts). */
  modelGateway?: ModelGateway;
}

function agentFields(result: unknown): Pick<ExecutionOutcome, 'operatorSummary' | 'recommendedNextActions' | 'specialistContract'> {
  const r = (typeof result === 'object' && result !== null ? result : {}) as Record<string, unknown>;
  return {
    operatorSummary: typeof r.operatorSummary === 'string' ? r.operatorSummary : null,
    recommendedNextActions: Array.isArray(r.recommendedNextActions)
      ? r.recommendedNextActions.filter((a): a is string => typeof a === 'string')
      : null,
    specialistContract:
      typeof r.specialistContract === 'object' && r.specialistContract !== null
        ? (r.specialistContract as SpecialistContract)
        : null,
  };
}

/** The handler bound to the state it reads: the whole document, or the document without its history. */
async function withState(deps: ExecutorDeps, handler: BoundTaskHandler): Promise<(input: HandlerInput) => Promise<HandlerOutcome>> {
  if (handler.readsTaskHistory) {
    const state = await deps.store.getState();
    return (input) => handler.run(state, input);
  }
  const state = await deps.store.getStateWithoutHistory();
  return (input) => handler.run(state, input);
}

/** One attempt as the executor runs it: the service's parts, the run's catalog entry, the run as claimed, its stop signal, run log and trace context. */
interface AttemptContext {
  deps: ExecutorDeps;
  entry: CatalogEntry;
  run: RunRecord;
  signal: AbortSignal;
  log: AttemptLog | null;
  traceparent: string | null;
}

async function runHandler(attempt: AttemptContext, handler: BoundTaskHandler): Promise<ExecutionOutcome> {
  const { deps, run, signal, log } = attempt;
  const started = Date.now();
  let outcome: HandlerOutcome;
  try {
    const call = await withState(deps, handler);
    // Stopped (cancel, shutdown, lease lost) before it began: the handler is not called at all.
    if (signal.aborted) return abortedBeforeStart(signal);
    const logger = lazyChild(deps.logger, { runId: run.runId, type: run.type });
    outcome = await call({
      runId: run.runId,
      taskId: run.taskId,
      type: run.type,
      payload: run.payload,
      signal,
      logger: log ? teeHandlerLogger(logger, log) : logger,
      clock: deps.clock,
      ...(deps.modelGateway ? { complete: bindGateway(deps.modelGateway, run, signal) } : {}),
    });
  } catch (err) {
    // A handler exception is a TaskResult with status error; the service keeps running. A
    // refusal (a path outside its root, a bad configuration) is the lane's expected answer, not
    // a fault: it carries its code as the failure reason and stays a refusal when retried.
    const message = err instanceof Error ? err.message : String(err);
    const refusal = err instanceof DomainError && REFUSAL_CODES.has(err.code) ? err.code : null;
    if (refusal) deps.logger.warn({ runId: run.runId, type: run.type, code: refusal, reason: message }, 'task handler refused the run');
    else deps.logger.error({ err, runId: run.runId, type: run.type }, 'task handler threw');
    return {
      ok: false,
      result: { status: 'error', error: message },
      error: message,
      failureReason: refusal ?? 'handler-exception',
      transient: refusal === null,
      durationMs: Date.now() - started,
      operatorSummary: null,
      recommendedNextActions: null,
      specialistContract: null,
    };
  }
  const durationMs = outcome.durationMs ?? Date.now() - started;
  const taskResult = { status: outcome.status, result: outcome.result, error: outcome.error, durationMs };
  const ok = outcome.status !== 'error';
  return {
    ok,
    result: taskResult,
    error: ok ? null : (outcome.error ?? 'handler reported status error'),
    failureReason: ok ? null : 'handler-error',
    // A handler reports expected failures (feed unreachable, no target); they may clear up later.
    transient: true,
    durationMs,
    stateUpdate: ok ? outcome.stateUpdate : undefined,
    followUps: ok ? outcome.followUps : undefined,
    ...(outcome.toolGate ? { toolGate: outcome.toolGate } : {}),
    ...agentFields(outcome.result),
  };
}

/** The gateway as a handler sees it: every request made for this run, attempt and lane. */
function bindGateway(gateway: ModelGateway, run: RunRecord, signal: AbortSignal): NonNullable<HandlerInput['complete']> {
  return (request) => gateway.complete({ ...request, runId: run.runId, attempt: run.attempt, lane: run.type, signal });
}

function abortedBeforeStart(signal: AbortSignal): ExecutionOutcome {
  const error = `stopped before the handler started (${String(signal.reason)})`;
  return { ok: false, result: null, error, failureReason: 'aborted', transient: false, durationMs: 0, operatorSummary: null, recommendedNextActions: null, specialistContract: null };
}

/** A refused preflight fails the run with its reason and spawns nothing; it is not retried. */
function refusedByToolGate(deps: ExecutorDeps, preflight: ToolGatePreflight): ExecutionOutcome {
  const reason = preflight.reason ?? 'tool gate refused the lane';
  return {
    ok: false,
    result: { success: false, error: reason, toolGate: { decision: 'refused', missingSkills: preflight.missingSkills } },
    error: reason,
    failureReason: 'tool-gate-refused',
    transient: false,
    durationMs: 0,
    operatorSummary: `Refused before spawning: ${reason}`,
    recommendedNextActions: ['Grant the missing skills in the agent manifest (allowedSkills) or fix the skill registry, then trigger again.'],
    specialistContract: null,
    toolGate: { preflight, execute: executeEvidence(preflight, { ok: false, durationMs: 0, failureReason: 'tool-gate-refused' }, deps.clock.now().toISOString()) },
  };
}

/** The lane's gate refused the attempt before the spawn (shared coordination said no). */
function blockedBeforeSpawn(blocked: BlockedAttempt): ExecutionOutcome {
  return {
    ok: false,
    result: blocked.result,
    error: blocked.reason,
    failureReason: 'coordination-blocked',
    transient: false,
    durationMs: 0,
    operatorSummary: blocked.operatorSummary,
    recommendedNextActions: blocked.recommendedNextActions,
    specialistContract: blocked.specialistContract,
    coordinationBlocked: blocked.reason,
  };
}

async function runWorker(attempt: AttemptContext): Promise<ExecutionOutcome> {
  const { deps, entry, run, signal, log, traceparent } = attempt;
  if (!entry.agentId) throw new ProgrammingError(`task type ${entry.type} runs as a worker but names no agent`);
  const preflight = entry.toolGatePreflight && deps.preflightToolGate ? deps.preflightToolGate(entry.type, entry.agentId) : null;
  if (preflight && preflight.decision === 'refused') return refusedByToolGate(deps, preflight);
  const lane = deps.lanes.get(entry.type);
  const gate = lane.beforeSpawn ? await lane.beforeSpawn(run) : null;
  if (gate?.blocked) return blockedBeforeSpawn(gate.blocked);
  // Service-reserved `__` keys the lane asked for; a client can never send such a key.
  const input = lane.workerInput ? await lane.workerInput(run) : {};
  // The model channel lives exactly as long as the attempt: revoked whatever way the worker ends.
  const channel = deps.modelChannel ? await deps.modelChannel.open(run, signal) : null;
  const outcome = await deps.spawner
    .run({
      agentId: entry.agentId,
      runId: run.runId,
      taskType: run.type,
      payload: { ...run.payload, ...input, ...gate?.input, ...channel?.input },
      signal,
      retainDirectory: true,
      ...(traceparent ? { traceparent } : {}),
      ...(log ? { onStderr: (chunk: Buffer) => log.stderr(chunk) } : {}),
      onPrepared: async (directory) => {
        await deps.store.mutateRun(run.runId, (current) =>
          isOwnedAttempt(current, deps.ownerId, run.attempt) ? { ...current, workerDirectory: directory } : null,
        );
      },
    })
    .finally(() => channel?.close());
  if (!outcome.ok) await gate?.onFailure?.();
  const directory = outcome.directory ?? null;
  const transient = outcome.failure === 'timeout' || outcome.failure === 'crash' || outcome.failure === 'spawn-error' || outcome.failure === 'non-json';
  return {
    ok: outcome.ok,
    result: outcome.result,
    error: outcome.ok ? null : (outcome.error ?? `worker failed (${outcome.failure ?? 'unknown'})`),
    failureReason: outcome.ok ? null : `worker-${outcome.failure ?? 'failure'}`,
    transient,
    durationMs: outcome.durationMs,
    stopSignal: outcome.stopSignal ?? null,
    release: directory ? () => removeWorkerDirectory(directory) : undefined,
    ...agentFields(outcome.result),
    ...(preflight
      ? {
          toolGate: {
            preflight,
            execute: executeEvidence(
              preflight,
              { ok: outcome.ok, durationMs: outcome.durationMs, failureReason: outcome.ok ? null : `worker-${outcome.failure ?? 'failure'}` },
              deps.clock.now().toISOString(),
            ),
          },
        }
      : {}),
  };
}

/**
 * Runs one attempt of a run with the executor its catalog entry names. Never throws. The
 * attempt's run log is closed (its last lines written) before the outcome is returned, so before
 * the run's final write: a client that sees the run finished reads its whole log.
 */
export async function executeRun(deps: ExecutorDeps, entry: CatalogEntry, run: RunRecord, signal: AbortSignal): Promise<ExecutionOutcome> {
  const tracer = deps.tracer ?? noopServiceTracer;
  if (tracer.enabled) tracer.recordQueueWait(run, readyAtOf(run), new Date(run.startedAt ?? run.updatedAt), deps.ownerId);
  const span = tracer.startExecution(run, deps.ownerId);
  const log = deps.runLogs?.open(run) ?? null;
  let outcome: ExecutionOutcome | null = null;
  try {
    outcome = await executeAttempt({ deps, entry, run, signal, log, traceparent: span.traceparent });
    return outcome;
  } finally {
    await log?.close();
    endExecutionSpan(span, signal, outcome);
  }
}

function endExecutionSpan(span: OpenSpan, signal: AbortSignal, outcome: ExecutionOutcome | null): void {
  if (signal.aborted) span.end('stopped', `stopped: ${String(signal.reason)}`);
  else if (!outcome) span.end('executor-error', 'the attempt ended without an outcome');
  else if (outcome.ok) span.end('success');
  else span.end(outcome.failureReason ?? 'failed', outcome.error ?? 'failed');
}

/** When the attempt just claimed became claimable: its admission (first or retry), else the run's creation. */
function readyAtOf(run: RunRecord): Date {
  for (let i = run.queueAttempts.length - 1; i >= 0; i -= 1) {
    const entry = run.queueAttempts[i]!;
    if (entry.attempt === run.attempt && entry.state === 'admitted') return new Date(entry.at);
  }
  return new Date(run.createdAt);
}

async function executeAttempt(attempt: AttemptContext): Promise<ExecutionOutcome> {
  const { deps, entry, run } = attempt;
  try {
    if (entry.executor === 'handler') {
      const handler = deps.lanes.get(entry.type).handler;
      if (!handler) throw new ProgrammingError(`no in-process handler registered for ${entry.type}`);
      return await runHandler(attempt, handler);
    }
    return await runWorker(attempt);
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    deps.logger.error({ err, runId: run.runId, type: run.type }, 'run execution failed');
    return {
      ok: false,
      result: null,
      error: message,
      failureReason: 'executor-error',
      transient: false,
      durationMs: 0,
      operatorSummary: null,
      recommendedNextActions: null,
      specialistContract: null,
    };
  }
}
