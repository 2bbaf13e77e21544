import type { Logger } from 'pino';
import { lazyChild } from '../logging.js';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import { executeEvidence, type ToolGatePreflight } from '../agents/tool-gate.js';
import type { StateStore } from '../store/types.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY } from '../worker-sdk/community-response.js';
import { CONTROL_PLANE_PAYLOAD_KEY, type ControlPlaneSnapshot } from '../worker-sdk/control-plane.js';
import { removeWorkerDirectory, type WorkerSpawner } from '../workers/spawn-worker.js';
import { isOwnedAttempt } from './run-transitions.js';
import type { CatalogEntry } from './catalog.js';
import type { CommunityResponseGateFn, PreparedCommunityRun } from './community-response-gate.js';
import type { FollowUpTask, HandlerOutcome, TaskHandler } from './handler-types.js';
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
}

export interface ExecutorDeps {
  config: AppConfig;
  store: StateStore;
  clock: Clock;
  logger: Logger;
  handlers: Record<string, TaskHandler>;
  spawner: WorkerSpawner;
  serviceStartedAt: Date;
  queueDepth: () => Promise<number>;
  /** This runner's claim identity: a worker's directory is recorded only while it owns the attempt. */
  ownerId: string;
  /** Builds the snapshot handed to lanes whose catalog entry reads the control plane. */
  controlPlaneSnapshot?: () => Promise<ControlPlaneSnapshot>;
  /** The tool-gate preflight of a lane's agent (src/agents/tool-gate.ts); absent, no lane is gated. */
  preflightToolGate?: (taskType: string, agentId: string) => ToolGatePreflight;
  /** community-response only: dedupe and daily budget through the coordination port, before the spawn. */
  communityResponseGate?: CommunityResponseGateFn;
}

/**
 * The payload a worker receives: the run's own, plus the control-plane snapshot for lanes that
 * judge the orchestrator. The snapshot rides under a `__` key, which clients can never send.
 */
async function workerPayload(deps: ExecutorDeps, entry: CatalogEntry, run: RunRecord): Promise<Record<string, unknown>> {
  if (entry.type === 'market-research') {
    // The operator's reach policy: the lane refuses every host outside it, before any request.
    const { allowPrivateHosts, allowedDomains } = deps.config.marketResearch;
    return { ...run.payload, __marketResearch: { allowPrivateHosts, ...(allowedDomains ? { allowedDomains } : {}) } };
  }
  if (entry.type === 'drift-repair') {
    // Where the docs, the knowledge packs and the index live: the worker cannot read the config.
    const { docsPath, knowledgePackDir, logsDir } = deps.config;
    return { ...run.payload, __knowledge: { docsPath, knowledgePackDir, logsDir } };
  }
  if (!entry.readsControlPlane || !deps.controlPlaneSnapshot) return run.payload;
  return { ...run.payload, [CONTROL_PLANE_PAYLOAD_KEY]: await deps.controlPlaneSnapshot() };
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

async function runHandler(deps: ExecutorDeps, handler: TaskHandler, run: RunRecord, signal: AbortSignal): Promise<ExecutionOutcome> {
  const started = Date.now();
  let outcome: HandlerOutcome;
  try {
    const state = await deps.store.getState();
    outcome = await handler(state, deps.config, {
      runId: run.runId,
      taskId: run.taskId,
      type: run.type,
      payload: run.payload,
      signal,
      logger: lazyChild(deps.logger, { runId: run.runId, type: run.type }),
      clock: deps.clock,
      serviceStartedAt: deps.serviceStartedAt,
      queueDepth: deps.queueDepth,
    });
  } catch (err) {
    // A handler exception is a TaskResult with status error; the service keeps running.
    const message = err instanceof Error ? err.message : String(err);
    deps.logger.error({ err, runId: run.runId, type: run.type }, 'task handler threw');
    return {
      ok: false,
      result: { status: 'error', error: message },
      error: message,
      failureReason: 'handler-exception',
      transient: true,
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

/** Every selected item was refused by shared coordination: nothing is spawned, the attempt is blocked. */
function blockedByCoordination(prepared: PreparedCommunityRun, reason: string): ExecutionOutcome {
  return {
    ok: false,
    result: { success: false, error: reason, coordination: { items: prepared.gate.items, budget: prepared.gate.budget } },
    error: reason,
    failureReason: 'coordination-blocked',
    transient: false,
    durationMs: 0,
    operatorSummary: `Not spawned: ${reason}`,
    recommendedNextActions: [
      'Read the existing drafts in the community drafts log before asking for another one.',
      'Raise communityResponse.dailyLlmBudget or trigger again after the UTC day rolls over when the budget is spent.',
    ],
    specialistContract: {
      role: 'community-helper',
      workflowStage: 'draft',
      deliverable: 'community reply drafts',
      status: 'refused',
      refusalReason: reason,
      escalationReason: null,
    },
    coordinationBlocked: reason,
  };
}

async function runWorker(deps: ExecutorDeps, entry: CatalogEntry, run: RunRecord, signal: AbortSignal): Promise<ExecutionOutcome> {
  if (!entry.agentId) throw new Error(`task type ${entry.type} has no agent`);
  const preflight = entry.toolGatePreflight && deps.preflightToolGate ? deps.preflightToolGate(entry.type, entry.agentId) : null;
  if (preflight && preflight.decision === 'refused') return refusedByToolGate(deps, preflight);
  const community = entry.type === 'community-response' && deps.communityResponseGate ? await deps.communityResponseGate(run) : null;
  if (community?.blocked) return blockedByCoordination(community, community.blocked);
  const payload = await workerPayload(deps, entry, run);
  const outcome = await deps.spawner.run({
    agentId: entry.agentId,
    runId: run.runId,
    taskType: run.type,
    payload: community ? { ...payload, [COMMUNITY_RESPONSE_PAYLOAD_KEY]: community.gate } : payload,
    signal,
    retainDirectory: true,
    onPrepared: async (directory) => {
      await deps.store.mutateRun(run.runId, (current) =>
        isOwnedAttempt(current, deps.ownerId, run.attempt) ? { ...current, workerDirectory: directory } : null,
      );
    },
  });
  // A failed attempt gives its item claims back, so the items are not stuck as "already drafted".
  if (!outcome.ok) await community?.release();
  const directory = outcome.directory ?? null;
  const transient = outcome.failure === 'timeout' || outcome.failure === 'crash' || outcome.failure === 'spawn-error' || outcome.failure === 'non-json';
  return {
    ok: outcome.ok,
    result: outcome.result,
    error: outcome.ok ? null : (outcome.error ?? `worker failed (${outcome.failure ?? 'unknown'})`),
    failureReason: outcome.ok ? null : `worker-${outcome.failure ?? 'failure'}`,
    transient,
    durationMs: outcome.durationMs,
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

/** Runs one attempt of a run with the executor its catalog entry names. Never throws. */
export async function executeRun(deps: ExecutorDeps, entry: CatalogEntry, run: RunRecord, signal: AbortSignal): Promise<ExecutionOutcome> {
  try {
    if (entry.executor === 'handler') {
      const handler = deps.handlers[entry.type];
      if (!handler) throw new Error(`no in-process handler registered for ${entry.type}`);
      return await runHandler(deps, handler, run, signal);
    }
    return await runWorker(deps, entry, run, signal);
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
