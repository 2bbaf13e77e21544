import { spawn } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createWorkspaceFile,
  ensureWorkspaceFolder,
  inspectWorkspacePath,
  listWorkspaceFolder,
  readWorkspaceFile,
  readWorkspaceText,
  removeWorkspaceFile,
  removeWorkspaceFolder,
  replaceWorkspaceFile,
} from '../../src/worker-sdk/workspace-file.js';
import { fileState, outsideFixture, POSIX, uniqueMarker, type OutsideFixture } from '../support/outside-files.js';

describe.skipIf(!POSIX)('the workspace opener: reads', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('read');
  let secret: string;

  beforeAll(() => {
    fx = outsideFixture('workspace-file');
    secret = fx.writeOutside('secret.txt', `${marker}\n`);
    fx.writeOutside('pkg/package.json', JSON.stringify({ name: marker }));
    fx.write('app/package.json', '{"name":"app"}');
    fx.write('app/src/index.js', 'export {};\n');
    fx.symlink('app/LICENSE', secret);
    fx.symlink('app/inside-link.js', join(fx.workspace, 'app', 'src', 'index.js'));
    fx.symlink('app/node_modules/pkg', join(fx.outside, 'pkg'));
    fx.symlink('app/alias', join(fx.workspace, 'app', 'src'));
    fx.hardLink('app/README.md', secret);
    fx.fifo('app/CHANGELOG.md');
  });
  afterAll(() => fx.cleanup());

  it('reads a regular file with one link, named relative to its root', () => {
    const read = readWorkspaceText(fx.workspace, 'app/package.json');
    expect(read).toMatchObject({ ok: true, path: 'app/package.json', text: '{"name":"app"}' });
    expect(readWorkspaceText(fx.workspace, './app//src/../package.json')).toMatchObject({ ok: true, path: 'app/package.json' });
  });

  it('refuses a file that is a symbolic link to a file outside the root, reading nothing', () => {
    const read = readWorkspaceFile(fx.workspace, 'app/LICENSE');
    expect(read).toEqual({
      ok: false,
      path: 'app/LICENSE',
      problem: 'symbolic-link',
      reason: 'is a symbolic link; links are not followed',
      message: 'app/LICENSE is a symbolic link; links are not followed',
    });
    expect(JSON.stringify(read)).not.toContain(marker);
  });

  it('refuses a symbolic link that ends inside the root as well: links are never followed', () => {
    expect(readWorkspaceFile(fx.workspace, 'app/inside-link.js')).toMatchObject({ ok: false, problem: 'symbolic-link' });
  });

  it('refuses a file below a linked folder, naming the folder, whether it leads out or not', () => {
    expect(readWorkspaceFile(fx.workspace, 'app/node_modules/pkg/package.json')).toMatchObject({
      ok: false,
      problem: 'linked-folder',
      message: 'app/node_modules/pkg/package.json passes through app/node_modules/pkg, a symbolic link; links are not followed',
    });
    expect(readWorkspaceFile(fx.workspace, 'app/alias/index.js')).toMatchObject({ ok: false, problem: 'linked-folder' });
  });

  it('reports a hard-linked file and does not read it', () => {
    const read = readWorkspaceFile(fx.workspace, 'app/README.md');
    expect(read).toMatchObject({ ok: false, problem: 'hard-link', message: expect.stringMatching(/^app\/README\.md is a hard link \(2 links\): its content may live outside the workspace; not opened$/) });
    expect(JSON.stringify(read)).not.toContain(marker);
  });

  it('does not block on a FIFO in a file\'s place', () => {
    expect(readWorkspaceFile(fx.workspace, 'app/CHANGELOG.md')).toMatchObject({ ok: false, problem: 'not-a-file' });
    expect(readWorkspaceFile(fx.workspace, 'app/CHANGELOG.md', { headBytes: 10 })).toMatchObject({ ok: false, problem: 'not-a-file' });
  });

  it('refuses paths that leave the root lexically, and the root itself', () => {
    expect(readWorkspaceFile(fx.workspace, '../outside/secret.txt')).toMatchObject({ ok: false, problem: 'outside-root' });
    expect(readWorkspaceFile(fx.workspace, secret)).toMatchObject({ ok: false, problem: 'outside-root' });
    expect(readWorkspaceFile(fx.workspace, 'app/../../outside/secret.txt')).toMatchObject({ ok: false, problem: 'outside-root' });
    expect(readWorkspaceFile(fx.workspace, 'a\0b')).toMatchObject({ ok: false, problem: 'outside-root' });
    expect(readWorkspaceFile(fx.workspace, '.')).toMatchObject({ ok: false, problem: 'not-a-file' });
  });

  it('bounds what it reads: over maxBytes is refused with the size, headBytes reads the start', () => {
    expect(readWorkspaceFile(fx.workspace, 'app/package.json', { maxBytes: 4 })).toMatchObject({ ok: false, problem: 'too-large', size: 14 });
    expect(readWorkspaceText(fx.workspace, 'app/package.json', { headBytes: 4 })).toMatchObject({ ok: true, text: '{"na', size: 14 });
    expect(readWorkspaceFile(fx.workspace, 'app/missing.json')).toMatchObject({ ok: false, problem: 'missing', message: 'app/missing.json does not exist' });
    expect(readWorkspaceFile(fx.workspace, 'nowhere/x.json')).toMatchObject({ ok: false, problem: 'missing' });
    expect(readWorkspaceFile(fx.workspace, 'app/package.json/x')).toMatchObject({ ok: false, problem: 'missing' });
  });

  it('trusts the root itself, also when it is reached through a link', () => {
    const linkedRoot = join(fx.base, 'root-link');
    symlinkSync(fx.workspace, linkedRoot);
    expect(readWorkspaceText(linkedRoot, 'app/package.json')).toMatchObject({ ok: true });
    expect(readWorkspaceFile(linkedRoot, 'app/LICENSE')).toMatchObject({ ok: false, problem: 'symbolic-link' });
  });

  it('names no absolute path in any refusal', () => {
    for (const rel of ['app/LICENSE', 'app/node_modules/pkg/package.json', 'app/README.md', 'app/CHANGELOG.md', '../outside/secret.txt', 'app/gone']) {
      const read = readWorkspaceFile(fx.workspace, rel);
      expect(read.ok).toBe(false);
      expect(JSON.stringify(read)).not.toContain(fx.base);
    }
  });

  it('looks at a path without opening it, by the same rules', () => {
    expect(inspectWorkspacePath(fx.workspace, 'app/package.json')).toMatchObject({ ok: true, kind: 'file', size: 14 });
    expect(inspectWorkspacePath(fx.workspace, 'app/src')).toMatchObject({ ok: true, kind: 'folder' });
    expect(inspectWorkspacePath(fx.workspace, 'app/LICENSE')).toMatchObject({ ok: false, problem: 'symbolic-link' });
    expect(inspectWorkspacePath(fx.workspace, 'app/node_modules/pkg')).toMatchObject({ ok: false, problem: 'symbolic-link' });
    expect(inspectWorkspacePath(fx.workspace, 'app/node_modules/pkg/package.json')).toMatchObject({ ok: false, problem: 'linked-folder' });
    expect(inspectWorkspacePath(fx.workspace, 'app/README.md')).toMatchObject({ ok: false, problem: 'hard-link' });
    expect(inspectWorkspacePath(fx.workspace, 'app/CHANGELOG.md')).toMatchObject({ ok: false, problem: 'not-a-file' });
  });

  it('lists a folder with each entry judged, following nothing', () => {
    const listing = listWorkspaceFolder(fx.workspace, 'app');
    expect(listing.ok && Object.fromEntries(listing.entries.map((e) => [e.name, e.kind]))).toEqual({
      'CHANGELOG.md': 'other',
      LICENSE: 'symbolic-link',
      'README.md': 'hard-link',
      alias: 'symbolic-link',
      'inside-link.js': 'symbolic-link',
      node_modules: 'folder',
      'package.json': 'file',
      src: 'folder',
    });
    expect(listWorkspaceFolder(fx.workspace, 'app/node_modules/pkg')).toMatchObject({ ok: false, problem: 'linked-folder' });
  });
});

describe.skipIf(!POSIX)('the workspace opener: writes', () => {
  let fx: OutsideFixture;
  const marker = uniqueMarker('write');
  let secret: string;

  beforeEach(() => {
    fx = outsideFixture('workspace-write');
    secret = fx.writeOutside('secret.txt', `${marker}\n`);
    fx.write('app/src/math.js', 'export const one = 1;\n');
    chmodSync(join(fx.workspace, 'app/src/math.js'), 0o750);
    fx.symlink('app/src/linked.js', secret);
    fx.symlink('app/linked-dir', fx.outside);
  });
  afterEach(() => fx.cleanup());

  it('replaces a regular file atomically and keeps its mode', () => {
    expect(replaceWorkspaceFile(fx.workspace, 'app/src/math.js', Buffer.from('export const two = 2;\n'), 0o750)).toEqual({ ok: true, path: 'app/src/math.js' });
    expect(readFileSync(join(fx.workspace, 'app/src/math.js'), 'utf8')).toBe('export const two = 2;\n');
    expect(statSync(join(fx.workspace, 'app/src/math.js')).mode & 0o777).toBe(0o750);
    expect(readdirSync(join(fx.workspace, 'app/src')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
  });

  it('never writes through a linked file: replace and remove refuse it, the outside file unchanged', () => {
    const before = fileState(secret);
    expect(replaceWorkspaceFile(fx.workspace, 'app/src/linked.js', Buffer.from('pwned'))).toMatchObject({ ok: false, problem: 'symbolic-link' });
    expect(removeWorkspaceFile(fx.workspace, 'app/src/linked.js')).toMatchObject({ ok: false, problem: 'symbolic-link' });
    expect(createWorkspaceFile(fx.workspace, 'app/src/linked.js', Buffer.from('pwned'))).toMatchObject({ ok: false, problem: 'exists' });
    expect(fileState(secret)).toEqual(before);
    expect(lstatSync(join(fx.workspace, 'app/src/linked.js')).isSymbolicLink()).toBe(true);
  });

  it('creates exclusively: a dangling link in the new file\'s place is not followed to create its target', () => {
    const target = join(fx.outside, 'planted.js');
    fx.symlink('app/src/new.js', target);
    expect(createWorkspaceFile(fx.workspace, 'app/src/new.js', Buffer.from('x'))).toMatchObject({ ok: false, problem: 'exists' });
    expect(existsSync(target)).toBe(false);
  });

  it('refuses every write below a linked folder, leaving the outside untouched', () => {
    const outsideBefore = readdirSync(fx.outside).sort();
    expect(createWorkspaceFile(fx.workspace, 'app/linked-dir/new.js', Buffer.from('x'))).toMatchObject({ ok: false, problem: 'linked-folder' });
    expect(replaceWorkspaceFile(fx.workspace, 'app/linked-dir/secret.txt', Buffer.from('x'))).toMatchObject({ ok: false, problem: 'linked-folder' });
    expect(removeWorkspaceFile(fx.workspace, 'app/linked-dir/secret.txt')).toMatchObject({ ok: false, problem: 'linked-folder' });
    expect(ensureWorkspaceFolder(fx.workspace, 'app/linked-dir/made/deeper')).toMatchObject({ ok: false, problem: 'linked-folder' });
    expect(readdirSync(fx.outside).sort()).toEqual(outsideBefore);
    expect(readFileSync(secret, 'utf8')).toBe(`${marker}\n`);
  });

  it('makes missing folders one at a time and says which, so they can be removed again', () => {
    expect(ensureWorkspaceFolder(fx.workspace, 'app/lib/deep/er')).toEqual({ ok: true, path: 'app/lib/deep/er', created: ['app/lib', 'app/lib/deep', 'app/lib/deep/er'] });
    expect(createWorkspaceFile(fx.workspace, 'app/lib/deep/er/x.js', Buffer.from('x'))).toMatchObject({ ok: true });
    expect(removeWorkspaceFolder(fx.workspace, 'app/lib/deep/er')).toMatchObject({ ok: false, code: 'ENOTEMPTY' });
    expect(removeWorkspaceFile(fx.workspace, 'app/lib/deep/er/x.js')).toMatchObject({ ok: true });
    for (const dir of ['app/lib/deep/er', 'app/lib/deep', 'app/lib']) expect(removeWorkspaceFolder(fx.workspace, dir)).toMatchObject({ ok: true });
    expect(existsSync(join(fx.workspace, 'app/lib'))).toBe(false);
  });
});

describe.skipIf(process.platform !== 'linux')('the workspace opener under a folder swapped for a link while it runs', () => {
  let fx: OutsideFixture;

  beforeAll(() => {
    fx = outsideFixture('workspace-race');
  });
  afterAll(() => fx.cleanup());

  it('never reads or writes outside the root, however the swap falls', async () => {
    const marker = uniqueMarker('race');
    fx.write('app/src/config.json', '{"inside":true}');
    fx.writeOutside('src/config.json', JSON.stringify({ marker }));
    const outsideFile = join(fx.outside, 'src', 'config.json');
    const before = fileState(outsideFile);
    // Another process flips app/src between the real folder and a link to the outside one.
    const src = join(fx.workspace, 'app', 'src');
    const flipper = spawn(
      process.execPath,
      [
        '-e',
        `const fs = require('node:fs');
         const [src, real, out] = process.argv.slice(1);
         const end = Date.now() + 30000;
         while (Date.now() < end) {
           try { fs.renameSync(src, real); fs.symlinkSync(out, src); fs.unlinkSync(src); fs.renameSync(real, src); } catch {}
         }`,
        src,
        join(fx.workspace, 'app', 'src-real'),
        join(fx.outside, 'src'),
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => flipper.on('exit', resolve));
    let reads = 0;
    let refused = 0;
    // Until the swap has both let reads through and refused some (how long that takes depends on
    // how the two processes are scheduled), within the flipper's own bound.
    const started = Date.now();
    while ((reads < 50 || refused === 0) && Date.now() - started < 25_000) {
      const read = readWorkspaceText(fx.workspace, 'app/src/config.json');
      reads += 1;
      if (read.ok) expect(read.text).toBe('{"inside":true}');
      else refused += 1;
      const written = replaceWorkspaceFile(fx.workspace, 'app/src/config.json', Buffer.from('{"inside":true}'));
      if (!written.ok) refused += 1;
      createWorkspaceFile(fx.workspace, 'app/src/planted.json', Buffer.from('x'));
      removeWorkspaceFile(fx.workspace, 'app/src/planted.json');
      await new Promise((resolve) => setImmediate(resolve));
    }
    flipper.kill('SIGKILL');
    await exited;
    expect(reads).toBeGreaterThanOrEqual(50);
    expect(refused).toBeGreaterThan(0);
    expect(fileState(outsideFile)).toEqual(before);
    expect(readdirSync(join(fx.outside, 'src'))).toEqual(['config.json']);
  }, 40_000);
});

describe.skipIf(!POSIX)('the workspace opener on an ordinary project', () => {
  it('is unaffected by folders that exist only as their real selves', () => {
    const fx = outsideFixture('workspace-plain');
    try {
      mkdirSync(join(fx.workspace, 'a', 'b', 'c'), { recursive: true });
      writeFileSync(join(fx.workspace, 'a', 'b', 'c', 'd.txt'), 'deep');
      expect(readWorkspaceText(fx.workspace, 'a/b/c/d.txt')).toMatchObject({ ok: true, text: 'deep' });
    } finally {
      fx.cleanup();
    }
  });
});
