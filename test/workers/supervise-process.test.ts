import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupMembers, type RecordedGroup } from '../../src/common/process-table.js';
import { superviseProcess, type SupervisedExit } from '../../src/workers/supervise-process.js';
import { tempDir } from '../support/config.js';
import { pidAlive } from '../support/execution-log.js';
import { waitUntil } from '../support/worker-spawn.js';

const leftovers: number[] = [];
afterEach(() => {
  for (const pgid of leftovers.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone
    }
  }
});

/** Runs `code` under the supervisor with a long timeout; the caller stops it. */
function supervise(code: string, options: { signal?: AbortSignal; abortGraceMs?: number; childGroupsFile?: string; events?: string[] } = {}): Promise<SupervisedExit> {
  const events = options.events ?? [];
  return superviseProcess({
    command: process.execPath,
    args: ['-e', code],
    cwd: tempDir('supervise-'),
    env: { PATH: process.env.PATH ?? '', ...(options.childGroupsFile ? { GROUPS_FILE: options.childGroupsFile } : {}) },
    timeoutMs: 60_000,
    killGraceMs: 200,
    abortGraceMs: options.abortGraceMs === undefined ? undefined : () => options.abortGraceMs!,
    maxStdoutBytes: 1024 * 1024,
    signal: options.signal,
    childGroupsFile: options.childGroupsFile,
    onGroupStarted: (group: RecordedGroup) => {
      leftovers.push(group.pgid);
      events.push(`started ${group.pgid}`);
    },
    onGroupEnded: (group: RecordedGroup) => events.push(`ended ${group.pgid}`),
  });
}

/**
 * Worker code that starts a child in its group which ignores SIGTERM, then runs `then` once the
 * child says its handler is in place (a SIGTERM before that would end it, and the test would
 * measure a child that never ignored anything).
 */
const withStubbornChild = (then: string) =>
  `const c = require('node:child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); process.stdout.write('r'); setInterval(() => {}, 1000)"], { stdio: ['ignore', 'pipe', 'ignore'] }); c.stdout.once('data', () => { ${then} });`;

describe.skipIf(process.platform !== 'linux')('superviseProcess and the processes of an attempt', () => {
  it('after an abort with its own grace: SIGTERM, then SIGKILL to a group that ignores it, and settles only once the group is empty', async () => {
    const controller = new AbortController();
    const events: string[] = [];
    const exit = supervise(`process.on('SIGTERM', () => {}); ${withStubbornChild("console.log('ready');")} setInterval(() => {}, 1000);`, {
      signal: controller.signal,
      abortGraceMs: 600,
      events,
    });
    await waitUntil(() => events.length === 1, 5000, 'the worker to start');
    const pgid = Number(events[0]!.split(' ')[1]);
    await waitUntil(() => groupMembers(pgid).length === 2, 5000, 'the worker and its child');
    const aborted = Date.now();
    controller.abort('cancel');
    const result = await exit;
    expect(Date.now() - aborted).toBeGreaterThanOrEqual(550);
    expect(result).toMatchObject({ spawnError: null, stopSignal: 'SIGKILL', survivors: false, stoppedBy: { failure: 'aborted' } });
    expect(groupMembers(pgid)).toEqual([]);
    expect(events).toEqual([`started ${pgid}`, `ended ${pgid}`]);
  });

  it('stops the groups the worker recorded beside its own, with SIGTERM when that is enough', async () => {
    const file = join(tempDir('groups-'), 'process-groups');
    writeFileSync(file, '');
    // The worker starts a command in a group of its own and records it, as the worker SDK does.
    const code = `
      const { spawn } = require('node:child_process');
      const { appendFileSync, readFileSync } = require('node:fs');
      const c = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
      const stat = readFileSync('/proc/' + c.pid + '/stat', 'utf8');
      appendFileSync(process.env.GROUPS_FILE, c.pid + ' ' + stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] + '\\n');
      setInterval(() => {}, 1000);`;
    const controller = new AbortController();
    const exit = supervise(code, { signal: controller.signal, abortGraceMs: 5000, childGroupsFile: file });
    let command = 0;
    await waitUntil(() => {
      command = Number(readFileSync(file, 'utf8').split(' ')[0]);
      return command > 0;
    }, 5000, 'the command group to be recorded');
    leftovers.push(command);
    expect(groupMembers(command)).toHaveLength(1);
    const aborted = Date.now();
    controller.abort('cancel');
    const result = await exit;
    expect(Date.now() - aborted).toBeLessThan(2000);
    expect(result).toMatchObject({ stopSignal: 'SIGTERM', survivors: false });
    expect(groupMembers(command)).toEqual([]);
    expect(pidAlive(command)).toBe(false);
  });

  it('a worker that exits leaving a process in its group settles only once that process is gone', async () => {
    const events: string[] = [];
    const result = await supervise(withStubbornChild(`process.stdout.write('{"success":true}'); process.exit(0);`), { events });
    const pgid = Number(events[0]!.split(' ')[1]);
    expect(result).toMatchObject({ exitCode: 0, stopSignal: 'SIGKILL', survivors: false, stoppedBy: null });
    expect(groupMembers(pgid)).toEqual([]);
  });
});
