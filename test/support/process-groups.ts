import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { groupMembers } from '../../src/common/process-table.js';
import { pidAlive } from './execution-log.js';
import { waitFor } from './http.js';
import { REPO_ROOT } from './paths.js';

// What tests of run control observe of a worker's processes: its group, the child it started.

/** The built worker SDK, which the scripted stand-in imports when a payload names it (`sdkDir`). */
export const BUILT_WORKER_SDK_DIR = join(REPO_ROOT, 'dist', 'src', 'worker-sdk');

/** A `child` line of the stand-in's execution log: the process a `spawn-child` worker started. */
export interface ChildRecord {
  event: 'child';
  runId: string;
  /** The child's pid (the leader of a group of its own when started as a project command). */
  pid: number;
  /** The worker's pid, which is also its process group id. */
  workerPid: number;
}

function logLines(log: string): Array<Record<string, unknown>> {
  if (!existsSync(log)) return [];
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Waits until the stand-in logged the child of `runId` and returns that line. */
export function waitForChild(log: string, runId: string, timeoutMs = 15_000): Promise<ChildRecord> {
  return waitFor(
    async () => logLines(log).find((l) => l.event === 'child' && l.runId === runId) as ChildRecord | undefined,
    timeoutMs,
    `the worker of ${runId} to start its child`,
  );
}

/** How many times the worker of `runId` started (a run that never runs twice starts once). */
export function startsOf(log: string, runId: string): number {
  return logLines(log).filter((l) => l.event === 'start' && l.runId === runId).length;
}

/** True when no live (non-zombie) process is in the group. */
export function groupGone(pgid: number): boolean {
  return groupMembers(pgid).length === 0;
}

/** True when neither the worker's group nor the child (and its own group) has a live process. */
export function attemptGone(child: ChildRecord): boolean {
  return groupGone(child.workerPid) && groupGone(child.pid) && !pidAlive(child.pid) && !pidAlive(child.workerPid);
}

/** Ends whatever is left of an attempt a failed test leaves behind. */
export function killAttempt(child: ChildRecord | undefined): void {
  if (!child) return;
  for (const pgid of [child.workerPid, child.pid]) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
