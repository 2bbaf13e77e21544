import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { DomainError } from '../../src/domain/errors.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import {
  checkPayloadScopes,
  collectScopeValues,
  pathLimitProblem,
  resolveWorkspacePath,
  WorkspaceBoundaryError,
} from '../../src/workspace/boundary.js';
import { tempDir } from '../support/config.js';

let base: string;
let root: string;
let outside: string;

beforeEach(() => {
  base = tempDir('boundary-');
  root = join(base, 'workspace');
  outside = join(base, 'outside');
  mkdirSync(join(root, 'projects', 'app', 'src'), { recursive: true });
  mkdirSync(outside, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), 'no');
  writeFileSync(join(root, 'projects', 'app', 'src', 'main.ts'), 'export {};');
});

function refusal(relative: string): WorkspaceBoundaryError {
  try {
    resolveWorkspacePath(root, relative);
  } catch (err) {
    expect(err).toBeInstanceOf(WorkspaceBoundaryError);
    return err as WorkspaceBoundaryError;
  }
  throw new Error(`expected ${relative} to be refused`);
}

describe('resolveWorkspacePath', () => {
  it('resolves existing files and directories inside the root', () => {
    expect(resolveWorkspacePath(root, 'projects/app')).toBe(join(root, 'projects', 'app'));
    expect(resolveWorkspacePath(root, 'projects/app/src/main.ts')).toBe(join(root, 'projects', 'app', 'src', 'main.ts'));
    expect(resolveWorkspacePath(root, '.')).toBe(root);
    expect(resolveWorkspacePath(root, 'projects/app/../app/src')).toBe(join(root, 'projects', 'app', 'src'));
  });

  it('allows paths that do not exist yet, inside the root', () => {
    expect(resolveWorkspacePath(root, 'projects/new/deep/file.md')).toBe(join(root, 'projects', 'new', 'deep', 'file.md'));
  });

  it('refuses .. escapes, naming the value', () => {
    const err = refusal('../outside/secret.txt');
    expect(err.message).toContain('"../outside/secret.txt"');
    expect(err.message).toMatch(/escapes the workspace/);
    refusal('projects/../../outside');
    refusal('..');
  });

  it('refuses absolute paths, POSIX and Windows style', () => {
    expect(refusal('/etc/passwd').message).toMatch(/absolute/);
    refusal(join(root, 'projects'));
    refusal('C:\\Windows');
    refusal('\\\\server\\share');
  });

  it('refuses NUL bytes and empty values', () => {
    expect(refusal('projects/app\0.txt').message).toMatch(/NUL/);
    expect(refusal('').message).toMatch(/empty/);
  });

  it('refuses a symlink that leads outside, also for paths below it that do not exist', () => {
    symlinkSync(outside, join(root, 'projects', 'escape'));
    expect(refusal('projects/escape').message).toMatch(/symbolic link/);
    refusal('projects/escape/secret.txt');
    refusal('projects/escape/not-there/yet.txt');
  });

  it('refuses a dangling symlink, whose target could be anywhere', () => {
    symlinkSync(join(outside, 'missing'), join(root, 'dangling'));
    refusal('dangling/file.txt');
  });

  it('accepts a symlink that stays inside the root', () => {
    symlinkSync(join(root, 'projects', 'app'), join(root, 'alias'));
    expect(resolveWorkspacePath(root, 'alias/src/main.ts')).toBe(join(root, 'alias', 'src', 'main.ts'));
  });

  it('accepts paths when the workspace root is itself reached through a symlink', () => {
    const linkedRoot = join(base, 'linked-workspace');
    symlinkSync(root, linkedRoot);
    expect(resolveWorkspacePath(linkedRoot, 'projects/app')).toBe(join(linkedRoot, 'projects', 'app'));
  });

  it('checks lexically when the root does not exist yet', () => {
    const missing = join(base, 'no-workspace');
    expect(resolveWorkspacePath(missing, 'a/b')).toBe(join(missing, 'a', 'b'));
    expect(() => resolveWorkspacePath(missing, '../x')).toThrow(WorkspaceBoundaryError);
  });
});

describe('collectScopeValues', () => {
  it('walks plain, nested and per-element selectors', () => {
    const payload = { scope: 'a', paths: ['b', 7, 'c'], source: { path: 'd' }, changes: [{ path: 'e' }, { content: 'x' }, { path: 'f' }] };
    expect(collectScopeValues('scope', payload)).toEqual([{ path: '/body/payload/scope', value: 'a' }]);
    expect(collectScopeValues('paths', payload)).toEqual([
      { path: '/body/payload/paths/0', value: 'b' },
      { path: '/body/payload/paths/2', value: 'c' },
    ]);
    expect(collectScopeValues('source.path', payload)).toEqual([{ path: '/body/payload/source/path', value: 'd' }]);
    expect(collectScopeValues('changes[].path', payload)).toEqual([
      { path: '/body/payload/changes/0/path', value: 'e' },
      { path: '/body/payload/changes/2/path', value: 'f' },
    ]);
    expect(collectScopeValues('missing.field', payload)).toEqual([]);
  });
});

describe('checkPayloadScopes', () => {
  it('reports every scope value outside the workspace with its payload path', () => {
    const details = checkPayloadScopes(getCatalogEntry('drift-repair')!, { paths: ['docs/a.md', '../x.md', '/etc/hosts'] }, root);
    expect(details.map((d) => d.path)).toEqual(['/body/payload/paths/1', '/body/payload/paths/2']);
    expect(details[0]!.message).toContain('"../x.md"');
  });

  it('checks nested build-refactor change paths and passes values inside', () => {
    const entry = getCatalogEntry('build-refactor')!;
    expect(checkPayloadScopes(entry, { scope: 'projects/app', changes: [{ path: 'projects/app/src/main.ts', content: '' }] }, root)).toEqual([]);
    const details = checkPayloadScopes(entry, { scope: 'projects/app', changes: [{ path: '../../etc/passwd', delete: true }] }, root);
    expect(details).toEqual([{ path: '/body/payload/changes/0/path', message: expect.stringMatching(/escapes/) }]);
  });

  it('checks security-audit scope and qa-verification target, ignoring types without scope fields', () => {
    expect(checkPayloadScopes(getCatalogEntry('security-audit')!, { scope: '../..' }, root)).toHaveLength(1);
    expect(checkPayloadScopes(getCatalogEntry('qa-verification')!, { target: '/abs' }, root)).toHaveLength(1);
    expect(checkPayloadScopes(getCatalogEntry('doc-sync')!, { scope: '../..' }, root)).toEqual([]);
  });

  it('leaves non-string values to schema validation', () => {
    expect(checkPayloadScopes(getCatalogEntry('security-audit')!, { scope: 42 }, root)).toEqual([]);
  });
});

describe('paths over the file system limits', () => {
  it('refuses a name over 255 bytes and a path over 4095 bytes before touching the disk', () => {
    const root = tempDir('limits-');
    const longName = 'a'.repeat(256);
    expect(() => resolveWorkspacePath(root, `projects/${longName}/x`)).toThrow(/name of 256 bytes/);
    // Bytes count, not characters: 86 three-byte characters are 258 bytes.
    expect(() => resolveWorkspacePath(root, '界'.repeat(86))).toThrow(/name of 258 bytes/);
    expect(() => resolveWorkspacePath(root, Array.from({ length: 20 }, () => 'b'.repeat(250)).join('/'))).toThrow(/at most 4095/);
    expect(pathLimitProblem(`projects/${'a'.repeat(255)}`)).toBeNull();
    try {
      resolveWorkspacePath(root, longName);
    } catch (err) {
      expect((err as DomainError).code).toBe('invalid_request');
      expect((err as Error).message.length).toBeLessThan(300);
    }
  });
});
