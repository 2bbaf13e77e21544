import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquirePidLock } from '../../src/store/pid-lock.js';
import { hasProcTable, processStat } from '../../src/common/process-table.js';
import { waitFor } from '../support/http.js';
import { tempDir } from '../support/config.js';

/**
 * A zombie: a child that exits once its shell has become `sleep`, which never reaps it, as a
 * service killed with kill -9 stays until its supervisor collects its status. Answers its pid
 * and a function that ends the parent (the zombie goes with it).
 */
async function zombie(): Promise<{ pid: number; end: () => void }> {
  const parent = spawn('sh', ['-c', '(exec sleep 0.2) & echo $!; exec sleep 30'], { stdio: ['ignore', 'pipe', 'ignore'] });
  const pid = await new Promise<number>((resolve) => parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
  await waitFor(async () => (processStat(pid)?.state === 'Z' ? true : undefined), 5000, 'the child to become a zombie');
  return { pid, end: () => parent.kill('SIGKILL') };
}

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

  it.skipIf(!hasProcTable())('takes over a lock whose holder is a zombie: it has exited, though it still answers signal 0', async () => {
    const { pid, end } = await zombie();
    try {
      expect(() => process.kill(pid, 0)).not.toThrow();
      const lockPath = join(tempDir(), 'state.json.lock');
      writeFileSync(lockPath, `${pid}\n`);
      const lock = await acquirePidLock(lockPath, 'state.json');
      expect(readFileSync(lockPath, 'utf8').trim()).toBe(String(process.pid));
      await lock.release();
    } finally {
      end();
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
