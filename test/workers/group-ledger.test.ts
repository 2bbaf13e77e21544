import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { bootId, groupMembers, processStat, recordGroupOf } from '../../src/common/process-table.js';
import { createGroupLedger, endPreviousLifeGroups, groupLedgerDir } from '../../src/workers/group-ledger.js';
import { tempDir } from '../support/config.js';
import { waitUntil } from '../support/worker-spawn.js';

const logger = pino({ level: 'silent' });
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

/** A detached process that ignores SIGTERM, with one child in its group. */
function stubbornGroup(): ChildProcess {
  const code = `process.on('SIGTERM', () => {}); require('node:child_process').spawn(process.execPath, ['-e', "process.on('SIGTERM', () => {}); setInterval(() => {}, 1000)"], { stdio: 'ignore' }); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['-e', code], { detached: true, stdio: 'ignore' });
  started.push(child);
  return child;
}

/** A ledger file as a service that has died would have left it (an owner pid that runs no more). */
function deadOwnerFile(dir: string, name: string, groups: unknown[], owner: Record<string, unknown> = {}): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ version: 1, owner: { pid: 2 ** 22 + 7, startTime: 1, bootId: bootId(), ...owner }, groups }));
  return path;
}

describe('where the ledger lives', () => {
  it('beside the state file for the file and SQLite stores, in the logs folder otherwise', () => {
    expect(groupLedgerDir({ stateTarget: '/srv/orch/data/state.json', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/data/process-groups');
    expect(groupLedgerDir({ stateTarget: 'sql:/srv/orch/data/orch.sqlite', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/data/process-groups');
    expect(groupLedgerDir({ stateTarget: 'postgres', logsDir: '/srv/orch/logs' })).toBe('/srv/orch/logs/process-groups');
  });
});

describe.skipIf(process.platform !== 'linux')('the worker process group ledger', () => {
  it('records each started group in this life\'s own file and drops it once the group ended', () => {
    const dir = join(tempDir('ledger-'), 'process-groups');
    const ledger = createGroupLedger(dir, logger);
    ledger.started({ group: { pgid: 4242, startTime: 99 }, runId: 'r1', childGroupsFile: '/tmp/x/process-groups' });
    ledger.started({ group: { pgid: 4343, startTime: 100 }, runId: 'r2', childGroupsFile: null });
    const [name] = readdirSync(dir);
    expect(name).toBe(`${process.pid}-${processStat(process.pid)!.startTime}.json`);
    const file = JSON.parse(readFileSync(join(dir, name!), 'utf8'));
    expect(file.owner).toEqual({ pid: process.pid, startTime: processStat(process.pid)!.startTime, bootId: bootId() });
    expect(file.groups.map((g: { runId: string }) => g.runId)).toEqual(['r1', 'r2']);
    ledger.ended(4242);
    expect(JSON.parse(readFileSync(join(dir, name!), 'utf8')).groups.map((g: { runId: string }) => g.runId)).toEqual(['r2']);
  });

  it('at start-up ends the groups a dead previous life recorded, and the groups their workers recorded, then forgets them', async () => {
    const dir = join(tempDir('ledger-'), 'process-groups');
    const worker = stubbornGroup();
    const projectCommand = stubbornGroup();
    await waitUntil(() => groupMembers(worker.pid!).length === 2 && groupMembers(projectCommand.pid!).length === 2, 5000, 'both groups to start');
    const commandGroup = recordGroupOf(projectCommand.pid!);
    const childGroupsFile = join(tempDir('payload-'), 'process-groups');
    writeFileSync(childGroupsFile, `${commandGroup.pgid} ${commandGroup.startTime}\n12`);
    const path = deadOwnerFile(dir, '1-1.json', [{ group: recordGroupOf(worker.pid!), runId: 'r1', childGroupsFile, at: new Date().toISOString() }]);

    expect(await endPreviousLifeGroups(dir, logger)).toEqual({ groups: 2, directories: 0 });
    expect(groupMembers(worker.pid!)).toEqual([]);
    expect(groupMembers(projectCommand.pid!)).toEqual([]);
    expect(existsSync(path)).toBe(false);
  });

  it('leaves alone a group whose id now names another process, and the files of a live owner', async () => {
    const dir = join(tempDir('ledger-'), 'process-groups');
    const other = stubbornGroup();
    await waitUntil(() => groupMembers(other.pid!).length === 2, 5000, 'the group to start');
    const reused = { pgid: other.pid!, startTime: recordGroupOf(other.pid!).startTime! - 5 };
    const dead = deadOwnerFile(dir, '1-1.json', [{ group: reused, runId: 'old', childGroupsFile: null, at: new Date().toISOString() }]);
    // A live owner: this test process, under another file name (another instance on this host).
    const live = deadOwnerFile(dir, 'live.json', [{ group: recordGroupOf(other.pid!), runId: 'live', childGroupsFile: null, at: new Date().toISOString() }], {
      pid: process.ppid,
      startTime: processStat(process.ppid)!.startTime,
    });

    expect(await endPreviousLifeGroups(dir, logger)).toEqual({ groups: 0, directories: 0 });
    expect(groupMembers(other.pid!)).toHaveLength(2);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it('only removes a file of an earlier boot (no process outlives a reboot)', async () => {
    const dir = join(tempDir('ledger-'), 'process-groups');
    const other = stubbornGroup();
    await waitUntil(() => groupMembers(other.pid!).length === 2, 5000, 'the group to start');
    const path = deadOwnerFile(dir, '1-1.json', [{ group: recordGroupOf(other.pid!), runId: 'r', childGroupsFile: null, at: '' }], { bootId: 'another-boot' });
    expect(await endPreviousLifeGroups(dir, logger)).toEqual({ groups: 0, directories: 0 });
    expect(groupMembers(other.pid!)).toHaveLength(2);
    expect(existsSync(path)).toBe(false);
  });

  it('at start-up removes the payload directories a dead previous life recorded, except one holding a durable result', async () => {
    const dir = join(tempDir('ledger-'), 'process-groups');
    const tmp = tempDir('ledger-tmp-');
    const payloadDir = (name: string, files: string[]) => {
      const path = join(tmp, name);
      mkdirSync(path);
      for (const file of files) writeFileSync(join(path, file), '{}');
      return path;
    };
    const killedWithItsService = payloadDir('orchestrator-r1-abc', ['payload.json', 'process-groups']);
    const answered = payloadDir('orchestrator-r2-def', ['payload.json', 'result.json']);
    const notOurs = payloadDir('projects', ['payload.json']);
    const ofLiveInstance = payloadDir('orchestrator-r3-ghi', ['payload.json']);
    // Gone groups (a pid no process has): their workers ended with the service.
    const gone = (n: number) => ({ pgid: 2 ** 22 + n, startTime: 1 });
    const entry = (n: number, directory: string) => ({ group: gone(n), runId: `r${n}`, childGroupsFile: join(directory, 'process-groups'), directory, at: '' });
    const dead = deadOwnerFile(dir, '1-1.json', [entry(1, killedWithItsService), entry(2, answered), entry(4, notOurs)]);
    const earlierBoot = payloadDir('orchestrator-r5-jkl', ['payload.json']);
    deadOwnerFile(dir, '1-2.json', [entry(5, earlierBoot)], { bootId: 'another-boot' });
    const live = deadOwnerFile(dir, 'live.json', [entry(3, ofLiveInstance)], { pid: process.ppid, startTime: processStat(process.ppid)!.startTime });

    expect(await endPreviousLifeGroups(dir, logger)).toEqual({ groups: 0, directories: 2 });
    expect(existsSync(killedWithItsService)).toBe(false);
    expect(existsSync(earlierBoot)).toBe(false);
    // Restart recovery finishes that attempt from its result, and removes the directory then.
    expect(readdirSync(answered)).toEqual(['payload.json', 'result.json']);
    expect(existsSync(notOurs)).toBe(true);
    expect(existsSync(ofLiveInstance)).toBe(true);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });
});

