import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { OrchestratorState, StateWithoutHistory, TaskResult } from '../domain/orchestrator-state.js';
import type { RunToolGate } from '../domain/run-record.js';
import type { BoundTaskHandler } from './lanes.js';
import type { CompletionAnswer, CompletionRequest } from '../models/types.js';

/** What the runner hands every in-process handler about the run it executes. */
export interface HandlerInput {
  runId: string;
  taskId: string;
  type: string;
  payload: Record<string, unknown>;
  /** Aborted when the run is cancelled or the service shuts down. */
  signal: AbortSignal;
  logger: Logger;
  clock: Clock;
  /**
   * Asks the model gateway (src/models/gateway.ts) for a completion on behalf of this attempt:
   * metered into the run, within the shared budget, refused with a reason when no model may be
   * used. Absent when the service runs without the models module.
   */
  complete?: (request: HandlerCompletionRequest) => Promise<CompletionAnswer>;
}

/** A handler's request: the run, attempt, lane and signal are the attempt's own. */
export type HandlerCompletionRequest = Omit<CompletionRequest, 'runId' | 'attempt' | 'lane' | 'signal'>;

/** A task the handler asks the runtime to admit through the one admission path. */
export interface FollowUpTask {
  type: string;
  payload: Record<string, unknown>;
}

export interface HandlerOutcome extends TaskResult {
  /** Applied atomically to the OrchestratorState after the handler returns (bounded arrays are enforced there). */
  stateUpdate?: (state: OrchestratorState) => OrchestratorState;
  followUps?: FollowUpTask[];
  /** A tool-gated handler's own preflight and execute evidence, recorded on the run like a worker lane's. */
  toolGate?: RunToolGate;
}

/**
 * The spec's handler signature `(state, config) -> TaskResult`, where `config` is the handler's
 * own narrow context (the paths, policy and ports it uses; never the whole configuration with
 * its keys and secrets), plus the run's input. A thrown exception becomes TaskResult
 * `{status: 'error', error}`; the service keeps running.
 */
export type TaskHandler<Context> = (state: OrchestratorState, context: Context, input: HandlerInput) => Promise<HandlerOutcome>;

/** A handler that reads the document but never its task history (typed so it cannot). */
export type StateHandler<Context> = (state: StateWithoutHistory, context: Context, input: HandlerInput) => Promise<HandlerOutcome>;

/** Binds a handler to its context once, at composition; the executor then calls it with the run's input. */
export function bindHandler<Context>(handler: TaskHandler<Context>, context: Context): BoundTaskHandler {
  return { readsTaskHistory: true, run: (state, input) => handler(state, context, input), context };
}

/** bindHandler for a handler that never reads the task history: it is given the document without it. */
export function bindStateHandler<Context>(handler: StateHandler<Context>, context: Context): BoundTaskHandler {
  return { readsTaskHistory: false, run: (state, input) => handler(state, context, input), context };
}
