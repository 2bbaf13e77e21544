import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';

const WRITER = join(import.meta.dirname, 'store-crash-writer.ts');

export interface CrashOutcome {
  /** Run ids whose insert the store acknowledged before the kill. */
  acknowledgedRuns: string[];
  /** Highest tasksProcessed the store acknowledged. */
  acknowledgedState: number;
}

/**
 * Runs store-crash-writer.ts against `target` and SIGKILLs it once `killAfterRuns` inserts were
 * acknowledged, then waits for it to die and returns everything it had acknowledged.
 * Only complete lines count: a line is printed after its acknowledgement, never before.
 */
export function runAndKill(target: string, prefix: string, killAfterRuns: number, extraArgs: string[] = []): Promise<CrashOutcome> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WRITER, target, prefix, ...extraArgs], {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const acknowledgedRuns: string[] = [];
    let acknowledgedState = 0;
    let buffered = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        const [kind, value] = line.split(' ');
        if (kind === 'run' && value !== undefined) acknowledgedRuns.push(value);
        if (kind === 'state') acknowledgedState = Math.max(acknowledgedState, Number(value));
      }
      if (!killed && acknowledgedRuns.length >= killAfterRuns) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    child.on('error', reject);
    child.on('close', (_code, signal) => {
      if (signal !== 'SIGKILL') {
        reject(new Error(`crash writer exited on its own (${String(signal)}): ${stderr}`));
        return;
      }
      resolve({ acknowledgedRuns, acknowledgedState });
    });
  });
}
