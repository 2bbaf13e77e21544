import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquirePidLock } from '../../src/store/pid-lock.js';
import { tempDir } from '../support/config.js';

/** The pid of a process that has already exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', '']);
  return child.pid!;
}

describe('pid lock', () => {
  it('writes our pid and removes the lock on release', async () => {
    const lockPath = join(tempDir(), 'state.json.lock');
    const lock = await acquirePidLock(lockPath, 'state.json');
    expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
    await lock.release();
    expect(existsSync(lockPath)).toBe(false);
  });

  it('refuses a lock held by a live process and leaves it alone', async () => {
    const lockPath = join(tempDir(), 'state.json.lock');
    writeFileSync(lockPath, `${process.ppid}\n`);
    await expect(acquirePidLock(lockPath, '/data/state.json')).rejects.toThrow(
      `state file /data/state.json is in use by pid ${process.ppid}`,
    );
    expect(readFileSync(lockPath, 'utf8')).toBe(`${process.ppid}\n`);
  });

  it('takes over a lock left by a dead process, by an earlier instance of ours, or with garbage content', async () => {
    for (const stale of [`${deadPid()}\n`, `${process.pid}\n`, '', 'not a pid']) {
      const lockPath = join(tempDir(), 'state.json.lock');
      writeFileSync(lockPath, stale);
      const lock = await acquirePidLock(lockPath, 'state.json');
      expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
      await lock.release();
    }
  });

  it('refuses a second holder in the same process until the first releases', async () => {
    const lockPath = join(tempDir(), 'state.json.lock');
    const lock = await acquirePidLock(lockPath, 'state.json');
    await expect(acquirePidLock(lockPath, 'state.json')).rejects.toThrow(/already open in this process/);
    await lock.release();
    const again = await acquirePidLock(lockPath, 'state.json');
    await again.release();
  });

  it('does not remove a lock another process took over meanwhile', async () => {
    const lockPath = join(tempDir(), 'state.json.lock');
    const lock = await acquirePidLock(lockPath, 'state.json');
    writeFileSync(lockPath, `${process.ppid}\n`);
    await lock.release();
    expect(readFileSync(lockPath, 'utf8')).toBe(`${process.ppid}\n`);
  });
});
