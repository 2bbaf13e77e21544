import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { AppConfig } from '../config/types.js';
import type { RunToolGate } from '../domain/run-record.js';
import type { OrchestratorState, TaskResult } from '../domain/orchestrator-state.js';

/** What the runner hands an in-process handler besides (state, config). */
export interface HandlerInput {
  runId: string;
  taskId: string;
  type: string;
  payload: Record<string, unknown>;
  /** Aborted when the run is cancelled or the service shuts down. */
  signal: AbortSignal;
  logger: Logger;
  clock: Clock;
  /** Process start time (for uptime). */
  serviceStartedAt: Date;
  /** Runs waiting in the queue right now (ready + held). */
  queueDepth: () => Promise<number>;
}

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
 * The spec's handler signature `(state, config) -> TaskResult`, plus the run's input. A thrown
 * exception becomes TaskResult `{status: 'error', error}`; the service keeps running.
 */
export type TaskHandler = (state: OrchestratorState, config: AppConfig, input: HandlerInput) => Promise<HandlerOutcome>;
