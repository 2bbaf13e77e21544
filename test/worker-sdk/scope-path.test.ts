import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveScope } from '../../src/worker-sdk/scope-path.js';

describe('resolveScope', () => {
  let base: string;
  let root: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'scope-path-'));
    root = join(base, 'workspace');
    mkdirSync(join(root, 'app', 'src'), { recursive: true });
    writeFileSync(join(root, 'app', 'package.json'), '{}');
    symlinkSync(base, join(root, 'escape'));
    symlinkSync(join(root, 'app'), join(root, 'app-link'));
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('resolves a folder or a file inside the workspace, with its workspace-relative name', () => {
    const folder = resolveScope(root, './app/src/');
    expect(folder).toMatchObject({ absolute: join(root, 'app', 'src'), relative: 'app/src' });
    expect('stats' in folder && folder.stats.isDirectory()).toBe(true);
    expect(resolveScope(root, 'app/package.json')).toMatchObject({ relative: 'app/package.json' });
    expect(resolveScope(root, '.')).toMatchObject({ relative: '.' });
  });

  it('names the problem under the label the lane gives', () => {
    expect(resolveScope(root, '../elsewhere')).toEqual({ problem: expect.stringMatching(/^scope .*escapes the workspace root/) });
    expect(resolveScope(root, 'escape/x', 'target')).toEqual({ problem: expect.stringMatching(/^target .*through a symbolic link/) });
    expect(resolveScope(root, 'app/missing', 'report')).toEqual({ problem: 'report "app/missing" does not exist in the workspace' });
  });

  it('refuses a scope that is or passes through a symbolic link, even one that stays inside the workspace', () => {
    expect(resolveScope(root, 'app-link')).toEqual({ problem: 'scope "app-link" is a symbolic link; links are not followed' });
    expect(resolveScope(root, 'app-link/src', 'target')).toEqual({ problem: 'target "app-link/src" passes through app-link, a symbolic link; links are not followed' });
  });
});
