import { DomainError } from '../domain/errors.js';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * The resident half of a service-expected agent: a long-running process whose only promise is
 * a heartbeat file, `<logsDir>/<agentId>-service.json`, rewritten atomically every interval and
 * marked `stopped` on SIGTERM/SIGINT. The orchestrator reads it as the agent's service memory.
 */

export const DEFAULT_HEARTBEAT_INTERVAL_MS = 30_000;

export interface ServiceHeartbeat {
  agentId: string;
  pid: number;
  startedAt: string;
  heartbeatAt: string;
  status: 'running' | 'stopped';
  intervalMs: number;
}

export interface ResidentServiceOptions {
  logsDir: string;
  intervalMs: number;
}

export function heartbeatFilePath(logsDir: string, agentId: string): string {
  return join(logsDir, `${agentId}-service.json`);
}

function argValue(argv: readonly string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  if (i >= 0) return argv[i + 1];
  const inline = argv.find((a) => a.startsWith(`${name}=`));
  return inline?.slice(name.length + 1);
}

/** `--logs-dir <path>`, else `ORCHESTRATOR_LOGS_DIR`, else `./logs`; `--interval-ms <n>` (tests use a short one). */
export function parseResidentServiceArgs(argv: readonly string[], env: NodeJS.ProcessEnv): ResidentServiceOptions {
  const logsDir = resolve(argValue(argv, '--logs-dir') ?? env.ORCHESTRATOR_LOGS_DIR ?? './logs');
  const rawInterval = argValue(argv, '--interval-ms');
  const intervalMs = rawInterval === undefined ? DEFAULT_HEARTBEAT_INTERVAL_MS : Number(rawInterval);
  if (!Number.isInteger(intervalMs) || intervalMs < 10) throw new DomainError('invalid_config', `--interval-ms must be an integer of at least 10 (got ${rawInterval})`);
  return { logsDir, intervalMs };
}

/** Temp file plus rename: a reader sees the old heartbeat or the new one, never half of one. */
export function writeHeartbeatAtomically(path: string, heartbeat: ServiceHeartbeat): void {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(heartbeat, null, 2)}\n`);
  renameSync(temp, path);
}

/**
 * Starts the heartbeat loop for `agentId` and installs the signal handlers. The first heartbeat
 * is on disk when it returns; the process then lives on its interval timer until a signal.
 */
export function runResidentService(
  agentId: string,
  argv: readonly string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): void {
  const { logsDir, intervalMs } = parseResidentServiceArgs(argv, env);
  mkdirSync(logsDir, { recursive: true });
  const path = heartbeatFilePath(logsDir, agentId);
  const startedAt = new Date().toISOString();
  const beat = (status: ServiceHeartbeat['status']) =>
    writeHeartbeatAtomically(path, { agentId, pid: process.pid, startedAt, heartbeatAt: new Date().toISOString(), status, intervalMs });

  beat('running');
  const timer = setInterval(() => {
    try {
      beat('running');
    } catch (err) {
      // A full disk or a removed logs dir should be visible in the journal, not kill the service.
      console.error(`${agentId} service: heartbeat write failed: ${(err as Error).message}`);
    }
  }, intervalMs);

  const stop = (signal: NodeJS.Signals) => {
    clearInterval(timer);
    try {
      beat('stopped');
    } catch (err) {
      console.error(`${agentId} service: final heartbeat write failed: ${(err as Error).message}`);
    }
    console.error(`${agentId} service: stopped on ${signal}`);
    process.exit(0);
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  console.error(`${agentId} service: running (pid ${process.pid}, heartbeat ${path} every ${intervalMs} ms)`);
}
