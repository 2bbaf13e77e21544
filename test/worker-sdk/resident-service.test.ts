import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseResidentServiceArgs, type ServiceHeartbeat } from '../../src/common/resident-service.js';
import { tempDir } from '../support/config.js';

// Runs the compiled entrypoints: `npm run build` first.
const ROOT = join(import.meta.dirname, '..', '..');

function readHeartbeat(path: string): ServiceHeartbeat | null {
  if (!existsSync(path)) return null;
  return JSON.parse(readFileSync(path, 'utf8')) as ServiceHeartbeat;
}

async function waitFor<T>(what: string, read: () => T | null | undefined, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('parseResidentServiceArgs', () => {
  it('prefers --logs-dir, then ORCHESTRATOR_LOGS_DIR, then ./logs', () => {
    expect(parseResidentServiceArgs(['--logs-dir', '/var/x'], { ORCHESTRATOR_LOGS_DIR: '/y' }).logsDir).toBe('/var/x');
    expect(parseResidentServiceArgs([], { ORCHESTRATOR_LOGS_DIR: '/y' }).logsDir).toBe('/y');
    expect(parseResidentServiceArgs([], {})).toEqual({ logsDir: join(process.cwd(), 'logs'), intervalMs: 30_000 });
    expect(() => parseResidentServiceArgs(['--interval-ms', 'soon'], {})).toThrow(/interval-ms/);
  });
});

describe.each(['doc-specialist', 'community-helper'])('%s resident service', (agentId) => {
  let child: ChildProcess | null = null;
  afterEach(() => {
    if (child?.pid && child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    child = null;
  });

  it('writes a heartbeat, refreshes it, and records stopped on SIGTERM', async () => {
    const entry = join(ROOT, 'dist', 'agents', agentId, 'service.js');
    expect(existsSync(entry), `${entry} (run npm run build)`).toBe(true);
    const logsDir = join(tempDir('resident-'), 'logs');
    const proc = spawn(process.execPath, [entry, '--logs-dir', logsDir, '--interval-ms', '100'], { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    const file = join(logsDir, `${agentId}-service.json`);

    const first = await waitFor('first heartbeat', () => readHeartbeat(file));
    expect(first).toMatchObject({ agentId, pid: proc.pid, status: 'running', intervalMs: 100 });
    const later = await waitFor('a newer heartbeat', () => {
      const hb = readHeartbeat(file);
      return hb && hb.heartbeatAt > first.heartbeatAt ? hb : null;
    });
    expect(later.startedAt).toBe(first.startedAt);

    process.kill(proc.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(readHeartbeat(file)).toMatchObject({ agentId, status: 'stopped', startedAt: first.startedAt });
  });
});
