import { spawn, type ChildProcess } from 'node:child_process';
import { readChildGroups } from '../common/child-groups.js';
import { recordGroupOf, type RecordedGroup } from '../common/process-table.js';
import type { WorkerExit } from './classify-outcome.js';
import { createGroupTerminator, type StopSignal } from './process-group.js';
import { teeStderr } from './stderr-tee.js';
import { collectStdout } from './stdout-collector.js';

export interface SuperviseOptions {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  timeoutMs: number;
  /** SIGTERM to SIGKILL after a timeout, an oversized output, or what the worker left behind when it exited. */
  killGraceMs: number;
  /** SIGTERM to SIGKILL when `signal` aborts, by its reason (an operator's cancel has a grace of its own); killGraceMs by default. */
  abortGraceMs?: (reason: unknown) => number;
  maxStdoutBytes: number;
  signal?: AbortSignal;
  /** Each chunk of the worker's stderr, which still goes on to the service's own stderr. */
  onStderr?: (chunk: Buffer) => void;
  /** The file in which the worker records the process groups it starts outside its own (child-groups.ts). */
  childGroupsFile?: string;
  /** Told of the worker's group as soon as it exists, and again once no process of the attempt lives. */
  onGroupStarted?: (group: RecordedGroup) => void;
  onGroupEnded?: (group: RecordedGroup) => void;
}

export type SupervisedExit =
  | ({ spawnError: null; pid: number; stopSignal: StopSignal | null; survivors: boolean } & WorkerExit)
  | { spawnError: string; pid: null };

/** How long past the SIGKILL the supervisor waits for the attempt's last process before it reports survivors. */
const AFTER_KILL_WAIT_MS = 5000;

function describeAbortReason(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  if (typeof reason === 'string' && reason !== '') return reason;
  return 'the run was cancelled';
}

/**
 * Runs one worker process to completion and reports how it ended. The worker leads its own
 * process group (`detached: true`) so that a timeout, an abort or an oversized output can kill
 * everything it started, not just the top process; the groups it records that it started
 * outside its own (project commands) are stopped with it. stdin is closed, stdout is collected,
 * stderr goes to the orchestrator's stderr so agent diagnostics are never lost: inherited, or
 * with `onStderr` read through a pipe and passed on as it arrives.
 *
 * The promise settles once stdout is drained ('close': settling on 'exit' could lose the tail of
 * the JSON result still in the pipe) and no process of the attempt lives any more: an attempt
 * is over only when nothing it started runs on (docs/run-control.md, "Process trees").
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

    // Read now, while the worker cannot have exited and been reaped: its start time tells its
    // group from a later one reusing the id.
    const group = recordGroupOf(pid);
    options.onGroupStarted?.(group);
    const childGroupsFile = options.childGroupsFile;
    const terminator = createGroupTerminator({ worker: group, childGroups: () => (childGroupsFile ? readChildGroups(childGroupsFile) : []) });
    let graceUsed = options.killGraceMs;
    let stoppedBy: WorkerExit['stoppedBy'] = null;
    const stop = (reason: NonNullable<WorkerExit['stoppedBy']>, graceMs: number) => {
      stoppedBy ??= reason;
      if (!terminator.started) graceUsed = graceMs;
      terminator.terminate(graceMs);
    };

    const stdout = collectStdout(child.stdout!, options.maxStdoutBytes, () =>
      stop({ failure: 'non-json', error: `worker stdout exceeded the ${options.maxStdoutBytes}-byte limit` }, options.killGraceMs),
    );
    if (options.onStderr && child.stderr) teeStderr(child.stderr, options.onStderr);
    const timeout = setTimeout(
      () => stop({ failure: 'timeout', error: `worker timed out after ${options.timeoutMs} ms` }, options.killGraceMs),
      options.timeoutMs,
    );
    const onAbort = () => {
      const reason: unknown = options.signal?.reason;
      stop({ failure: 'aborted', error: `worker aborted: ${describeAbortReason(reason)}` }, options.abortGraceMs?.(reason) ?? options.killGraceMs);
    };
    if (options.signal?.aborted) onAbort();
    else options.signal?.addEventListener('abort', onAbort, { once: true });

    let drainTimer: NodeJS.Timeout | undefined;
    child.once('exit', () => {
      clearTimeout(timeout);
      // Whatever the worker left behind is an orphan nobody supervises, and it may hold stdout
      // open so 'close' never comes: the group goes down with its leader.
      if (!terminator.started) graceUsed = options.killGraceMs;
      terminator.terminate(options.killGraceMs);
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
      void terminator.whenGone(graceUsed + AFTER_KILL_WAIT_MS).then((gone) => {
        if (gone) options.onGroupEnded?.(group);
        resolve({
          spawnError: null,
          pid,
          exitCode: code,
          signal,
          stdout: stdout.text(),
          stoppedBy,
          stopSignal: terminator.strongestSignal,
          survivors: !gone,
        });
      });
    });
  });
}
