/** The abort reason of an operator's cancel: the worker's group gets the cancel grace (config cancelGraceMs) before SIGKILL. */
export const CANCEL_ABORT_REASON = 'cancel';

/** How a worker run went wrong; null when it succeeded. */
export type WorkerFailure =
  | 'spawn-error'
  | 'timeout'
  | 'crash'
  | 'non-json'
  | 'logical-failure'
  | 'aborted'
  | 'no-entrypoint';

export interface WorkerRequest {
  agentId: string;
  runId: string;
  /** The task type (lane) being run; picks the per-lane timeout and must be one of the agent's lanes. */
  taskType: string;
  payload: Record<string, unknown>;
  /** Overrides every configured timeout for this run. */
  timeoutMs?: number;
  /**
   * Aborting kills the worker's whole process group (and the groups it recorded): SIGTERM, then
   * SIGKILL after the spawner's grace, or after its cancel grace when the reason is CANCEL_ABORT_REASON.
   */
  signal?: AbortSignal;
  /**
   * Keep the payload directory with the worker's durable `result.json` after the run (the payload
   * file itself is removed); the caller removes it with removeWorkerDirectory once it has recorded
   * the outcome durably. A worker that wrote no result leaves nothing to keep: the directory goes.
   */
  retainDirectory?: boolean;
  /** Each chunk of the worker's standard error (the attempt's run log); it still reaches the service's stderr. */
  onStderr?: (chunk: Buffer) => void;
  /** Called with the payload directory before the worker starts (to record it durably). */
  onPrepared?: (directory: string) => Promise<void>;
  /** The attempt's execution span (W3C traceparent), given to the worker as TRACEPARENT. */
  traceparent?: string;
}

export interface WorkerOutcome {
  /** True only for exit code 0 with one JSON object on stdout whose `success` is `true`. */
  ok: boolean;
  /** The parsed stdout object when there was one, also for failures that reported one. */
  result: Record<string, unknown> | null;
  error: string | null;
  failure: WorkerFailure | null;
  exitCode: number | null;
  signal: string | null;
  durationMs: number;
  pid: number | null;
  /** The strongest signal the orchestrator had to send to a live process of the attempt; null when none. */
  stopSignal?: 'SIGTERM' | 'SIGKILL' | null;
  /** The payload directory when the request asked to retain it and it holds the worker's result. */
  directory?: string | null;
}

/**
 * The runtime's port to worker processes (src/workers/spawn-worker.ts implements it; the
 * composition root hands it in), so the runtime knows the protocol's shapes and never the spawn.
 */
export interface WorkerSpawner {
  /** Runs one worker to completion. Never throws: every problem is a failed outcome. */
  run(request: WorkerRequest): Promise<WorkerOutcome>;
}
