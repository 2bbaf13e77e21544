import { parseWorkerStdout } from '../common/worker-protocol.js';
import type { WorkerFailure } from '../runtime/worker-port.js';

export { parseWorkerStdout };

/** Everything known about a worker once it has exited and its stdout has closed. */
export interface WorkerExit {
  exitCode: number | null;
  signal: string | null;
  stdout: string;
  /** Set when the orchestrator stopped the worker; the reason wins over the exit status. */
  stoppedBy: null | { failure: 'timeout' | 'aborted' | 'non-json'; error: string };
}

export interface ClassifiedOutcome {
  ok: boolean;
  result: Record<string, unknown> | null;
  error: string | null;
  failure: WorkerFailure | null;
}

function reportedError(result: Record<string, unknown> | null): string | null {
  return result && typeof result.error === 'string' && result.error.trim() !== '' ? result.error : null;
}

/**
 * Applies the protocol's success rule: exit code 0, one JSON object on stdout, and
 * `success === true`. Anything else is a failure with a reason an operator can act on; a
 * worker that exits non-zero but still explains itself in JSON keeps its own error text.
 */
export function classifyWorkerExit(exit: WorkerExit): ClassifiedOutcome {
  if (exit.stoppedBy) {
    return { ok: false, result: null, error: exit.stoppedBy.error, failure: exit.stoppedBy.failure };
  }
  const parsed = parseWorkerStdout(exit.stdout);
  const result = 'object' in parsed ? parsed.object : null;

  if (exit.exitCode !== 0) {
    const status = exit.exitCode === null ? `was killed by ${exit.signal ?? 'a signal'}` : `exited with code ${exit.exitCode}`;
    return { ok: false, result, error: reportedError(result) ?? `worker ${status}`, failure: 'crash' };
  }
  if (!result) {
    return { ok: false, result: null, error: (parsed as { problem: string }).problem, failure: 'non-json' };
  }
  if (result.success !== true) {
    return {
      ok: false,
      result,
      error: reportedError(result) ?? 'worker result did not report success: true',
      failure: 'logical-failure',
    };
  }
  return { ok: true, result, error: null, failure: null };
}
