import { spawn } from 'node:child_process';
import { OutputBuffer } from './output-buffer.js';

export interface CommandOutcome {
  /** The exit code, or null when a signal ended the process or it never started. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** Why the command could not start (ENOENT, EACCES…), or null. */
  spawnError: string | null;
  output: string;
  outputTruncated: boolean;
  durationMs: number;
}

export interface RunCommandOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  timeoutMs: number;
  outputCapBytes: number;
}

/** After SIGTERM the group gets this long to exit before SIGKILL. */
const KILL_GRACE_MS = 2000;

/** Signals a whole process group; the group may already be gone, which is what was wanted. */
function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: nothing left in the group.
  }
}

/**
 * Runs one command without a shell in its own process group (`detached`), so a timeout can end
 * npm and every runner process under it, not just npm. Resolves when the output streams close,
 * never rejects.
 */
export function runCommand(command: string, args: string[], options: RunCommandOptions): Promise<CommandOutcome> {
  const started = Date.now();
  const output = new OutputBuffer(options.outputCapBytes);
  return new Promise((resolve) => {
    let timedOut = false;
    let spawnError: string | null = null;
    let killTimer: NodeJS.Timeout | undefined;
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      shell: false,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (chunk: Buffer) => output.append(chunk));
    child.stderr.on('data', (chunk: Buffer) => output.append(chunk));
    const timeout = setTimeout(() => {
      timedOut = true;
      if (child.pid === undefined) return;
      killGroup(child.pid, 'SIGTERM');
      killTimer = setTimeout(() => killGroup(child.pid!, 'SIGKILL'), KILL_GRACE_MS);
    }, options.timeoutMs);
    child.on('error', (err) => {
      spawnError = err.message;
    });
    child.on('close', (exitCode, signal) => {
      clearTimeout(timeout);
      clearTimeout(killTimer);
      // Runner children that outlived npm must not keep running after the lane has answered.
      if (child.pid !== undefined) killGroup(child.pid, 'SIGKILL');
      resolve({
        exitCode: spawnError === null ? exitCode : null,
        signal,
        timedOut,
        spawnError,
        output: output.text(),
        outputTruncated: output.truncated,
        durationMs: Date.now() - started,
      });
    });
  });
}
