import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// What the worker spawner's tests observe of the workers it spawned: processes, payload files, logged spawn errors.

/**
 * Whether a process still runs. A killed process whose parent has already exited stays a
 * zombie until init reaps it, and where init does not reap (some containers) a zombie still
 * answers signal 0; it is dead all the same, so /proc is consulted when available.
 */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
  if (!existsSync('/proc/self/stat')) return true;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls a synchronous `condition` every 25 ms until it holds, or fails after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Payload directories of a run still present in the temp directory. */
export function leftoverPayloadDirs(sanitizedRunId: string): string[] {
  return readdirSync(tmpdir()).filter((name) => name.startsWith(`orchestrator-${sanitizedRunId}-`)).map((n) => join(tmpdir(), n));
}

/** The `agent spawn error` lines logged for one run. */
export function spawnErrors(lines: Array<Record<string, unknown>>, runId: string): Array<Record<string, unknown>> {
  return lines.filter((line) => line.msg === 'agent spawn error' && line.runId === runId);
}
