import { spawn, type ChildProcess } from 'node:child_process';
import type { WorkerExit } from './classify-outcome.js';
import { createGroupTerminator } from './process-group.js';
import { teeStderr } from './stderr-tee.js';
import { collectStdout } from './stdout-collector.js';

export interface SuperviseOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  killGraceMs: number;
  maxStdoutBytes: number;
  signal?: AbortSignal;
  /** Each chunk of the worker's stderr, which still goes on to the service's own stderr. */
  onStderr?: (chunk: Buffer) => void;
}

export type SupervisedExit =
  | ({ spawnError: null; pid: number } & WorkerExit)
  | { spawnError: string; pid: null };

function describeAbortReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'the run was cancelled';
}

/**
 * Runs one worker process to completion and reports how it ended. The worker leads its own
 * process group (`detached: true`) so that a timeout, an abort or an oversized output can kill
 * everything it started, not just the top process. stdin is closed, stdout is collected,
 * stderr goes to the orchestrator's stderr so agent diagnostics are never lost: inherited, or
 * with `onStderr` read through a pipe and passed on as it arrives.
 *
 * The promise settles on 'close' (process gone and stdout drained), never earlier: settling on
 * 'exit' could lose the tail of the JSON result still sitting in the pipe.
 */
export function superviseProcess(options: SuperviseOptions): Promise<SupervisedExit> {
  return new Promise((resolve) => {
    let child: ChildProcess;
    try {
      child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env,
        stdio: ['ignore', 'pipe', options.onStderr ? 'pipe' : 'inherit'],
        detached: true,
      });
    } catch (err) {
      resolve({ spawnError: (err as Error).message, pid: null });
      return;
    }

    const pid = child.pid;
    if (pid === undefined) {
      // Spawn failed (missing cwd, exhausted process table, ...): the reason arrives as 'error'.
      child.once('error', (err) => resolve({ spawnError: err.message, pid: null }));
      return;
    }

    const terminator = createGroupTerminator(pid, options.killGraceMs);
    let stoppedBy: WorkerExit['stoppedBy'] = null;
    const stop = (reason: NonNullable<WorkerExit['stoppedBy']>) => {
      stoppedBy ??= reason;
      terminator.terminate();
    };

    const stdout = collectStdout(child.stdout!, options.maxStdoutBytes, () =>
      stop({ failure: 'non-json', error: `worker stdout exceeded the ${options.maxStdoutBytes}-byte limit` }),
    );
    if (options.onStderr && child.stderr) teeStderr(child.stderr, options.onStderr);
    const timeout = setTimeout(
      () => stop({ failure: 'timeout', error: `worker timed out after ${options.timeoutMs} ms` }),
      options.timeoutMs,
    );
    const onAbort = () =>
      stop({ failure: 'aborted', error: `worker aborted: ${describeAbortReason(options.signal?.reason)}` });
    options.signal?.addEventListener('abort', onAbort, { once: true });

    let drainTimer: NodeJS.Timeout | undefined;
    child.once('exit', () => {
      clearTimeout(timeout);
      // Whatever the worker left behind is an orphan nobody supervises, and it may hold stdout
      // open so 'close' never comes: the group goes down with its leader.
      terminator.terminate();
      drainTimer = setTimeout(() => {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }, options.killGraceMs + 1000);
    });
    child.on('error', () => {
      // After a successful spawn an 'error' only reports a failed kill; 'close' still follows.
    });
    child.once('close', (code, signal) => {
      clearTimeout(timeout);
      clearTimeout(drainTimer);
      options.signal?.removeEventListener('abort', onAbort);
      resolve({ spawnError: null, pid, exitCode: code, signal, stdout: stdout.text(), stoppedBy });
    });
  });
}
