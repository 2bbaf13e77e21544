/**
 * Bare-spawn peer for the worker-overhead scenario: the same agent entrypoint the service
 * spawns, started directly with `node <entry> --payload <file>`, timed from spawn to exit.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SpawnOutcome {
  ms: number;
  exitCode: number | null;
  /** `result.success === true` in the JSON the agent printed. */
  success: boolean;
  stdoutBytes: number;
}

/** Writes the payload file (mode 0600, as the service does), spawns the agent, waits for exit. */
export async function spawnAgentOnce(entry: string, payload: Record<string, unknown>, cwd: string, timeoutMs = 60_000): Promise<SpawnOutcome> {
  const dir = mkdtempSync(join(tmpdir(), 'orch-bench-payload-'));
  const file = join(dir, 'payload.json');
  writeFileSync(file, JSON.stringify(payload), { mode: 0o600 });
  try {
    const started = performance.now();
    const child = spawn(process.execPath, [entry, '--payload', file], {
      cwd,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`agent did not exit within ${timeoutMs} ms`));
      }, timeoutMs);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('close', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    const ms = performance.now() - started;
    const stdout = Buffer.concat(chunks).toString('utf8');
    let success = false;
    try {
      success = (JSON.parse(stdout.trim()) as { success?: unknown }).success === true;
    } catch {
      success = false;
    }
    return { ms, exitCode, success, stdoutBytes: stdout.length };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
