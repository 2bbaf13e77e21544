import { appendFileSync, readFileSync } from 'node:fs';
import { recordGroupOf, signalRecordedGroup, type RecordedGroup } from './process-table.js';

/**
 * The process groups a worker starts beside its own. A worker leads its own process group, and
 * what it starts normally stays in it, so stopping that group stops everything; but a project
 * command is started in a group (and session) of its own so that its timeout can end it without
 * ending the worker (project-command.ts). Such a group is recorded here when it starts: in this
 * process, so an orphaned worker can end it (parent-watch.ts), and in the file the orchestrator
 * names in ORCHESTRATOR_PROCESS_GROUPS_FILE, so the orchestrator stops it with the worker's own
 * group when the attempt is cancelled, times out or loses its lease, and finds it after a crash
 * of its own (docs/run-control.md, "Process trees"). One line per group: `<pgid> <startTime>`.
 */
export const PROCESS_GROUPS_FILE_ENV = 'ORCHESTRATOR_PROCESS_GROUPS_FILE';

const started = new Map<number, RecordedGroup>();

/** Records a group this worker just started (its leader's pid), before it can do any work. */
export function recordChildGroup(pid: number, env: NodeJS.ProcessEnv = process.env): RecordedGroup {
  const group = recordGroupOf(pid);
  started.set(pid, group);
  const file = env[PROCESS_GROUPS_FILE_ENV];
  if (file) {
    try {
      // Synchronous: the line is in the file before the command can start anything of its own.
      appendFileSync(file, `${group.pgid} ${group.startTime ?? ''}\n`, { mode: 0o600 });
    } catch {
      // The file is the orchestrator's safety net; the group is still ended by this worker.
    }
  }
  return group;
}

/** Forgets a group that has ended (its file line stays: readers check that a group still lives). */
export function forgetChildGroup(pid: number): void {
  started.delete(pid);
}

/** Sends `signal` to every group this worker started that still lives. */
export function signalChildGroups(signal: NodeJS.Signals): void {
  for (const group of started.values()) signalRecordedGroup(group, signal);
}

/** The groups listed in a worker's file (the orchestrator's side); none when it is absent or unreadable. */
export function readChildGroups(file: string): RecordedGroup[] {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  const groups: RecordedGroup[] = [];
  for (const line of text.split('\n')) {
    const [pgidText, startText] = line.trim().split(' ');
    const pgid = Number(pgidText);
    // A torn last line (the worker killed mid-write) or anything else malformed is skipped.
    if (!Number.isInteger(pgid) || pgid <= 1) continue;
    const startTime = startText ? Number(startText) : null;
    groups.push({ pgid, startTime: startTime !== null && Number.isFinite(startTime) ? startTime : null });
  }
  return groups;
}
