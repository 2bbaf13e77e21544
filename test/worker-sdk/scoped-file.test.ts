import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readScopedFile } from '../../src/worker-sdk/scoped-file.js';

describe('readScopedFile', () => {
  let base: string;
  let root: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'scoped-file-'));
    root = join(base, 'workspace');
    mkdirSync(join(root, 'src'), { recursive: true });
    writeFileSync(join(root, 'src', 'app.js'), 'export const answer = 42;\n');
    writeFileSync(join(base, 'secret.txt'), 'outside the root\n');
    symlinkSync(join(base, 'secret.txt'), join(root, 'src', 'link.txt'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('reads a regular file named relative to the root', () => {
    const read = readScopedFile(root, 'src/app.js');
    expect(read.ok && read.content.toString('utf8')).toBe('export const answer = 42;\n');
  });

  it('refuses paths that leave the root, lexically or as an absolute path', () => {
    expect(readScopedFile(root, '../secret.txt')).toMatchObject({ ok: false, problem: 'outside-root' });
    expect(readScopedFile(root, join(base, 'secret.txt'))).toMatchObject({ ok: false, problem: 'outside-root' });
  });

  it('never follows a symbolic link, even one the walk did not see', () => {
    expect(readScopedFile(root, 'src/link.txt')).toMatchObject({ ok: false, problem: 'symbolic-link' });
  });

  it('bounds what it reads and names missing files and folders', () => {
    expect(readScopedFile(root, 'src/app.js', { maxBytes: 10 })).toEqual({ ok: false, problem: 'too-large', message: 'is larger than 10 bytes; not read' });
    expect(readScopedFile(root, 'src/gone.js')).toMatchObject({ ok: false, problem: 'missing' });
    expect(readScopedFile(root, 'src')).toMatchObject({ ok: false, problem: 'not-a-file' });
  });

  it.skipIf(process.platform === 'win32')('does not block on a FIFO put where a file was', () => {
    execFileSync('mkfifo', [join(root, 'src', 'pipe')]);
    expect(readScopedFile(root, 'src/pipe')).toMatchObject({ ok: false, problem: 'not-a-file' });
  });

  it('names no path in its messages', () => {
    for (const rel of ['../secret.txt', 'src/link.txt', 'src/gone.js', 'src']) {
      const read = readScopedFile(root, rel);
      expect(read.ok).toBe(false);
      if (!read.ok) expect(read.message).not.toContain(base);
    }
  });
});
