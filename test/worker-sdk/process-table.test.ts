import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers, parseStat, processStat, recordedGroupMembers, recordGroupOf, signalRecordedGroup } from '../../src/common/process-table.js';
import { waitUntil } from '../support/worker-spawn.js';

const started: ChildProcess[] = [];
afterEach(() => {
  for (const child of started.splice(0)) {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** A detached process (the leader of a group of its own) that starts `children` more processes in its group and sleeps. */
function detachedGroup(children = 1): ChildProcess {
  const code = `const { spawn } = require('node:child_process'); for (let i = 0; i < ${children}; i++) spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' });
  started.push(child);
  return child;
}

describe.skipIf(process.platform !== 'linux')('the process table', () => {
  it('parses /proc/<pid>/stat, a command name with spaces and parentheses included', () => {
    const line = '4242 (my (odd) name) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 20 0 1 0 987654 1000 10';
    expect(parseStat(4242, line)).toEqual({ pid: 4242, state: 'S', ppid: 1, pgrp: 4242, startTime: 987654 });
    expect(parseStat(1, 'garbage')).toBeNull();
    const self = processStat(process.pid)!;
    expect(self.pid).toBe(process.pid);
    expect(self.startTime).toBeGreaterThan(0);
  });

  it('lists the live members of a group and tells the recorded group from one that reuses its id', async () => {
    const leader = detachedGroup(2);
    const group = recordGroupOf(leader.pid!);
    await waitUntil(() => groupMembers(group.pgid).length === 3, 5000, 'the leader and its two children');
    expect(recordedGroupMembers(group)).toHaveLength(3);
    // Another start time under the same id: someone else's group, left alone.
    const impostor = { pgid: group.pgid, startTime: group.startTime! - 1 };
    expect(recordedGroupMembers(impostor)).toEqual([]);
    expect(signalRecordedGroup(impostor, 'SIGKILL')).toBe(false);
    expect(groupMembers(group.pgid)).toHaveLength(3);

    expect(signalRecordedGroup(group, 'SIGKILL')).toBe(true);
    await waitUntil(() => groupMembers(group.pgid).length === 0, 5000, 'the group to be gone');
    expect(signalRecordedGroup(group, 'SIGKILL')).toBe(false);
  });

  it('never reads group 0 or 1 (this process\'s own group, every process)', () => {
    expect(groupMembers(0)).toEqual([]);
    expect(groupMembers(1)).toEqual([]);
    expect(groupMembers(-5)).toEqual([]);
  });

  it('counts a group whose leader is gone while a member lives, unless that member is older than the recorded leader', async () => {
    // The leader starts a child in its group and exits at once: the child is left in the group.
    const code = `const { spawn } = require('node:child_process'); const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' }); c.unref(); setTimeout(() => process.exit(0), 200);`;
    const leader = spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' });
    started.push(leader);
    const group = recordGroupOf(leader.pid!);
    await new Promise((resolve) => leader.once('exit', resolve));
    await waitUntil(() => groupMembers(group.pgid).length === 1, 5000, 'the orphan alone in the group');
    expect(recordedGroupMembers(group)).toHaveLength(1);
    // Recorded as starting after the orphan: the orphan cannot belong to it.
    expect(recordedGroupMembers({ pgid: group.pgid, startTime: group.startTime! + 1_000_000 })).toEqual([]);
  });
});
