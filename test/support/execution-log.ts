import { existsSync, readFileSync } from 'node:fs';
import { waitFor } from './http.js';

export interface ExecutionRecord {
  event: 'start' | 'end';
  runId: string;
  pid: number;
  /** The orchestrator that spawned the worker (absent in logs of workers that do not say). */
  ppid?: number;
  at: number;
}

export function readExecutionLog(path: string): ExecutionRecord[] {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ExecutionRecord);
}

/** True while the process exists and is not a zombie (this container's init may not reap orphans). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Problems in an execution log: a run that completed more than once, or two executions of one run
 * that overlapped in time (an execution without an end lasts until its process is gone, which
 * the caller has waited for).
 */
export function executionProblems(records: ExecutionRecord[], deathTimes: Map<number, number>): string[] {
  const problems: string[] = [];
  const byRun = new Map<string, ExecutionRecord[]>();
  for (const r of records) byRun.set(r.runId, [...(byRun.get(r.runId) ?? []), r]);
  for (const [runId, list] of byRun) {
    const ends = list.filter((r) => r.event === 'end');
    if (ends.length > 1) problems.push(`${runId} completed ${ends.length} times`);
    const intervals = list
      .filter((r) => r.event === 'start')
      .map((s) => {
        const end = list.find((r) => r.event === 'end' && r.pid === s.pid);
        return { pid: s.pid, from: s.at, to: end?.at ?? deathTimes.get(s.pid) ?? Number.POSITIVE_INFINITY };
      })
      .sort((a, b) => a.from - b.from);
    for (let i = 1; i < intervals.length; i += 1) {
      if (intervals[i]!.from < intervals[i - 1]!.to) problems.push(`${runId} ran concurrently in pids ${intervals[i - 1]!.pid} and ${intervals[i]!.pid}`);
    }
  }
  return problems;
}

/** Time after a kill within which a worker that had passed its parent check writes its start. */
const LATE_START_MS = 300;

/**
 * After the orchestrator was killed at `killedAt`: waits until every worker in the log that
 * `spawnedByIt` picks (all of them by default) has exited, recording when each was seen gone,
 * and returns their start records. The log is read again on every poll for at least
 * LATE_START_MS, so a worker that wrote its start just after the kill is waited for too (left
 * out, it would count as running forever and overlap its run's next execution).
 */
export async function waitForOrphansToExit(
  log: string,
  deathTimes: Map<number, number>,
  killedAt: number,
  spawnedByIt: (record: ExecutionRecord) => boolean = () => true,
): Promise<ExecutionRecord[]> {
  return waitFor(
    async () => {
      const starts = readExecutionLog(log).filter((r) => r.event === 'start' && spawnedByIt(r));
      for (const { pid } of starts) if (!deathTimes.has(pid) && !pidAlive(pid)) deathTimes.set(pid, Date.now());
      return Date.now() - killedAt > LATE_START_MS && starts.every(({ pid }) => deathTimes.has(pid)) ? starts : undefined;
    },
    5000,
    'orphaned workers to exit',
  );
}
