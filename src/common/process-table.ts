import { readdirSync, readFileSync } from 'node:fs';

/**
 * What the kernel's process table says about processes and process groups, read from Linux's
 * /proc. The service and its workers both use it to end a run's processes: to tell a live
 * process from a zombie (a zombie still answers signal 0, and where init does not reap orphans
 * it stays one forever), and to tell a process group of theirs from a later one that reuses its
 * id (a process's start time, in clock ticks since boot, never changes and is not reused).
 * Without /proc (not Linux) the answers fall back to what `kill(pid, 0)` can say.
 */

export interface ProcessStat {
  pid: number;
  /** One letter: R running, S sleeping, D disk wait, Z zombie, X dead, ... */
  state: string;
  ppid: number;
  pgrp: number;
  /** Clock ticks since boot at which the process started (field 22 of /proc/<pid>/stat). */
  startTime: number;
}

export const hasProcTable = (() => {
  let known: boolean | null = null;
  return () => {
    if (known === null) {
      try {
        readFileSync('/proc/self/stat', 'utf8');
        known = true;
      } catch {
        known = false;
      }
    }
    return known;
  };
})();

/** Parses one /proc/<pid>/stat line; the command name may hold spaces and parentheses, so fields are read after the last `)`. */
export function parseStat(pid: number, text: string): ProcessStat | null {
  const close = text.lastIndexOf(')');
  if (close < 0) return null;
  const fields = text.slice(close + 2).split(' ');
  // fields[0] is field 3 of the line (state), so field n is fields[n - 3].
  const state = fields[0];
  const ppid = Number(fields[1]);
  const pgrp = Number(fields[2]);
  const startTime = Number(fields[19]);
  if (!state || !Number.isInteger(ppid) || !Number.isInteger(pgrp) || !Number.isFinite(startTime)) return null;
  return { pid, state, ppid, pgrp, startTime };
}

/** The process's entry, or null when it does not exist (or /proc cannot be read). */
export function processStat(pid: number): ProcessStat | null {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return null;
  }
}

const isGone = (state: string) => state === 'Z' || state === 'X';

/** This boot's id: a start time means nothing across a reboot. Null without /proc. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/** Whether signal 0 reaches anything in the group (zombies included). */
function groupAnswers(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    // EPERM: the group exists but is not ours to signal; it is alive all the same.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Live (not zombie) members of the process group `pgid`, from one pass over /proc. */
export function groupMembers(pgid: number): ProcessStat[] {
  // kill(-1) would reach every process the user owns and kill(-0) this process's own group.
  if (!Number.isInteger(pgid) || pgid <= 1 || !groupAnswers(pgid)) return [];
  if (!hasProcTable()) return [{ pid: pgid, state: 'R', ppid: 0, pgrp: pgid, startTime: 0 }];
  const members: ProcessStat[] = [];
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return [{ pid: pgid, state: 'R', ppid: 0, pgrp: pgid, startTime: 0 }];
  }
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid <= 0) continue;
    const stat = processStat(pid);
    if (stat && stat.pgrp === pgid && !isGone(stat.state)) members.push(stat);
  }
  return members;
}

/** A process group as recorded when its leader was started: its id and the leader's start time. */
export interface RecordedGroup {
  pgid: number;
  /** The leader's start time (ProcessStat.startTime); null where /proc is not available. */
  startTime: number | null;
}

/**
 * Live members of the recorded group, or none when the group is gone or the id now names
 * someone else's group. The group is the recorded one when its leader is still the process
 * that was recorded (same start time), or, the leader gone, when every member started no
 * earlier than it did (a group's id cannot be reused while any member of it lives, so a member
 * older than the recorded leader belongs to another group of the same id).
 */
export function recordedGroupMembers(group: RecordedGroup): ProcessStat[] {
  const members = groupMembers(group.pgid);
  if (members.length === 0 || group.startTime === null || !hasProcTable()) return members;
  const leader = processStat(group.pgid);
  if (leader && !isGone(leader.state)) {
    return leader.startTime === group.startTime && leader.pgrp === group.pgid ? members : [];
  }
  return members.every((m) => m.startTime >= group.startTime!) ? members : [];
}

/** The recorded group for a process that was just started (read before it can exit and be reaped). */
export function recordGroupOf(pid: number): RecordedGroup {
  return { pgid: pid, startTime: processStat(pid)?.startTime ?? null };
}

/**
 * Sends `signal` to the recorded group when it is still the recorded one. Returns false when
 * the group is gone (or is no longer ours).
 */
export function signalRecordedGroup(group: RecordedGroup, signal: NodeJS.Signals): boolean {
  if (recordedGroupMembers(group).length === 0) return false;
  try {
    process.kill(-group.pgid, signal);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw err;
  }
}

/** The process group this process belongs to, or null where /proc cannot say. */
export function ownProcessGroup(): number | null {
  return processStat(process.pid)?.pgrp ?? null;
}
