import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';
import { walkScope } from '../../src/worker-sdk/scope-walk.js';

describe('walkScope', () => {
  let base: string;
  let root: string;
  const write = (rel: string, text = 'x') => {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), text);
  };
  const paths = (files: Array<{ path: string }>) => files.map((f) => f.path);

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'scope-walk-'));
    root = join(base, 'workspace');
    write('app/src/b.ts');
    write('app/src/a.ts');
    write('app/src/Z.ts');
    write('app/src/deep/er/est.ts');
    write('app/.env', 'SECRET=1');
    write('app/README.md', 'a longer readme than the bound allows');
    write('app/node_modules/dep/index.js');
    write('app/.git/HEAD');
    write('app/dist/app.js');
    write('app/coverage/lcov.info');
    writeFileSync(join(base, 'outside.ts'), 'not in the workspace');
    symlinkSync(join(base, 'outside.ts'), join(root, 'app', 'src', 'escape.ts'));
    symlinkSync(base, join(root, 'app', 'up'));
    symlinkSync(join(root, 'app', 'src'), join(root, 'src-link'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('lists regular files depth first in code-unit order, with root-relative paths', () => {
    const walk = walkScope(root, join(root, 'app', 'src'));
    expect(paths(walk.files)).toEqual(['app/src/Z.ts', 'app/src/a.ts', 'app/src/b.ts', 'app/src/deep/er/est.ts']);
    expect(walk.files[0]).toMatchObject({ name: 'Z.ts', size: 1 });
    expect(walk.stopped).toBe(false);
  });

  it('passes by the ignore list and reports each folder it did not enter', () => {
    const walk = walkScope(root, join(root, 'app'));
    expect(paths(walk.files)).not.toContain('app/dist/app.js');
    expect(walk.skipped.filter((s) => s.reason === 'ignored-folder').map((s) => s.path)).toEqual(['app/.git', 'app/coverage', 'app/dist', 'app/node_modules']);
    const sourceOnly = walkScope(root, join(root, 'app'), { ignore: SOURCE_CONTROL_KINDS });
    expect(paths(sourceOnly.files)).toEqual(expect.arrayContaining(['app/dist/app.js', 'app/coverage/lcov.info']));
    expect(sourceOnly.skipCounts['ignored-folder']).toBe(2);
  });

  it('never follows a symbolic link, to a file or a folder, and reports it', () => {
    const walk = walkScope(root, join(root, 'app'));
    expect(walk.skipped.filter((s) => s.reason === 'symbolic-link').map((s) => s.path)).toEqual(['app/src/escape.ts', 'app/up']);
    expect(paths(walk.files).some((p) => p.includes('outside'))).toBe(false);
    // A start that is itself a link is not walked either, even when it points inside the root.
    expect(walkScope(root, join(root, 'src-link'))).toMatchObject({ files: [], skipped: [{ path: 'src-link', reason: 'symbolic-link' }] });
  });

  it('keeps dotfiles unless told not to', () => {
    expect(paths(walkScope(root, join(root, 'app')).files)).toContain('app/.env');
    expect(paths(walkScope(root, join(root, 'app'), { dotfiles: false }).files)).not.toContain('app/.env');
  });

  it('counts only wanted files, skipping those over the byte and file limits', () => {
    const walk = walkScope(root, join(root, 'app'), { include: ({ name }) => /\.(ts|md)$/.test(name), maxFileBytes: 5, maxFiles: 2 });
    expect(paths(walk.files)).toEqual(['app/src/Z.ts', 'app/src/a.ts']);
    expect(walk.skipped.filter((s) => s.reason !== 'ignored-folder' && s.reason !== 'symbolic-link')).toEqual([
      { path: 'app/README.md', reason: 'over-byte-limit', file: expect.objectContaining({ path: 'app/README.md', size: 37 }) },
      { path: 'app/src/b.ts', reason: 'over-file-limit' },
      { path: 'app/src/deep/er/est.ts', reason: 'over-file-limit' },
    ]);
    expect(walk.skipCounts).toMatchObject({ 'over-byte-limit': 1, 'over-file-limit': 2 });
  });

  it('stops at the entry limit and does not enter folders below the depth limit', () => {
    const stopped = walkScope(root, join(root, 'app', 'src'), { maxEntries: 2 });
    expect(stopped).toMatchObject({ stopped: true, skipCounts: { 'entry-limit': 1 } });
    expect(paths(stopped.files)).toEqual(['app/src/Z.ts', 'app/src/a.ts']);
    const shallow = walkScope(root, join(root, 'app', 'src'), { maxDepth: 1 });
    expect(paths(shallow.files)).toEqual(['app/src/Z.ts', 'app/src/a.ts', 'app/src/b.ts']);
    expect(shallow.skipped.filter((s) => s.reason === 'depth-limit')).toEqual([{ path: 'app/src/deep/er', reason: 'depth-limit' }]);
  });

  it('lists at most maxListedSkips per reason and counts them all', () => {
    const walk = walkScope(root, join(root, 'app'), { maxFiles: 0, maxListedSkips: 1 });
    expect(walk.skipped.filter((s) => s.reason === 'over-file-limit')).toHaveLength(1);
    expect(walk.skipCounts['over-file-limit']).toBeGreaterThan(1);
  });

  it.skipIf(process.platform === 'win32')('reports a hard-linked file as skipped, and a start below a linked folder', () => {
    const hard = mkdtempSync(join(tmpdir(), 'scope-walk-hard-'));
    try {
      const ws = join(hard, 'workspace');
      mkdirSync(join(ws, 'app'), { recursive: true });
      writeFileSync(join(hard, 'outside.env'), 'TOKEN=from-outside');
      linkSync(join(hard, 'outside.env'), join(ws, 'app', 'settings.env'));
      writeFileSync(join(ws, 'app', 'own.env'), 'TOKEN=own');
      symlinkSync(join(ws, 'app'), join(ws, 'alias'));
      const walk = walkScope(ws, join(ws, 'app'));
      expect(paths(walk.files)).toEqual(['app/own.env']);
      expect(walk.skipped).toEqual([{ path: 'app/settings.env', reason: 'hard-link', detail: 'hard link (2 links): its content may live outside the workspace' }]);
      expect(walk.skipCounts['hard-link']).toBe(1);
      // A file the include filter does not want is not reported, hard link or not.
      expect(walkScope(ws, join(ws, 'app'), { include: ({ name }) => name === 'own.env' }).skipped).toEqual([]);
      expect(walkScope(ws, join(ws, 'alias', 'own.env'))).toMatchObject({ files: [], skipped: [{ path: 'alias/own.env', reason: 'symbolic-link' }] });
    } finally {
      rmSync(hard, { recursive: true, force: true });
    }
  });

  it('walks a single file, and reports a start that does not exist', () => {
    expect(paths(walkScope(root, join(root, 'app', 'src', 'a.ts')).files)).toEqual(['app/src/a.ts']);
    expect(walkScope(root, join(root, 'nowhere'))).toMatchObject({ files: [], skipped: [{ path: 'nowhere', reason: 'unreadable' }] });
  });

  it('refuses a start outside its root', () => {
    expect(() => walkScope(root, base)).toThrow(/inside its root/);
  });
});
