import { chmodSync, existsSync, linkSync, mkdirSync, readFileSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureSnapshot, pruneSnapshots, readProgramFolder, snapshotPath } from '../../src/operator-types/program-store.js';
import { tempDir } from '../support/config.js';

function programFolder(files: Record<string, string> = { 'run.sh': 'echo one', 'lib/data.txt': 'x' }): string {
  const dir = tempDir('orch-program-');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, '..'), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

const digestOf = (dir: string): string => {
  const read = readProgramFolder(dir);
  if ('problem' in read) throw new Error(read.problem);
  return read.digest;
};

describe('program snapshots of operator task types', () => {
  it('digests the files of the folder, their names and executable bits, whatever the folder is called', () => {
    const a = programFolder();
    const b = programFolder();
    expect(digestOf(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(digestOf(a)).toBe(digestOf(b));
    chmodSync(join(b, 'run.sh'), 0o755);
    expect(digestOf(b)).not.toBe(digestOf(a));
    writeFileSync(join(a, 'run.sh'), 'echo two');
    expect(digestOf(a)).not.toBe(digestOf(programFolder()));
  });

  it('refuses a folder holding a symbolic link or a hard link, naming the entry', () => {
    const linked = programFolder();
    symlinkSync('/etc/hostname', join(linked, 'outside'));
    expect(readProgramFolder(linked)).toEqual({ problem: expect.stringContaining('outside is a symbolic link') });
    const hard = programFolder();
    linkSync(join(hard, 'run.sh'), join(hard, 'again.sh'));
    expect(readProgramFolder(hard)).toEqual({ problem: expect.stringMatching(/again\.sh is a hard link|run\.sh is a hard link/) });
  });

  it('writes a snapshot once, whole and read-only, and rebuilds one only from a folder holding the same program', () => {
    const root = join(tempDir('orch-snapshots-'), 'task-type-snapshots');
    const dir = programFolder();
    const digest = digestOf(dir);
    expect(ensureSnapshot(root, dir, digest)).toEqual({ path: snapshotPath(root, digest) });
    expect(readFileSync(join(snapshotPath(root, digest), 'lib', 'data.txt'), 'utf8')).toBe('x');
    expect(statSync(join(snapshotPath(root, digest), 'run.sh')).mode & 0o222).toBe(0);
    // Present: the folder is not read again, whatever it holds now.
    writeFileSync(join(dir, 'run.sh'), 'echo two');
    expect(ensureSnapshot(root, dir, digest)).toEqual({ path: snapshotPath(root, digest) });
    const other = 'f'.repeat(64);
    expect(ensureSnapshot(root, dir, other)).toEqual({ problem: expect.stringContaining('holds another program') });
    expect(ensureSnapshot(root, join(dir, 'gone'), other)).toEqual({ problem: expect.stringContaining('cannot be snapshotted') });
    expect(existsSync(snapshotPath(root, other))).toBe(false);
  });

  it('prunes the snapshots not kept and stale temporary folders, nothing else', () => {
    const root = join(tempDir('orch-snapshots-'), 'task-type-snapshots');
    const kept = digestOf(programFolder());
    const dropped = digestOf(programFolder({ 'run.sh': 'echo dropped' }));
    ensureSnapshot(root, programFolder(), kept);
    ensureSnapshot(root, programFolder({ 'run.sh': 'echo dropped' }), dropped);
    mkdirSync(join(root, 'notes'));
    mkdirSync(join(root, '.tmp-fresh'));
    mkdirSync(join(root, '.tmp-stale'));
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(join(root, '.tmp-stale'), old, old);
    expect(pruneSnapshots(root, new Set([kept]))).toEqual([dropped]);
    expect(['notes', '.tmp-fresh', '.tmp-stale', kept, dropped].map((name) => existsSync(join(root, name)))).toEqual([true, true, false, true, false]);
  });
});
