import { describe, expect, it } from 'vitest';
import { ALL_IGNORED_KINDS, IGNORED_FOLDERS, isIgnoredFolder, SOURCE_CONTROL_KINDS } from '../../src/worker-sdk/ignored-folders.js';

describe('the ignore list', () => {
  it('names installed dependencies, version control and build output', () => {
    expect(IGNORED_FOLDERS.get('node_modules')).toBe('dependencies');
    expect(IGNORED_FOLDERS.get('.git')).toBe('version-control');
    for (const name of ['dist', 'build', 'coverage']) expect(IGNORED_FOLDERS.get(name)).toBe('build-output');
  });

  it('ignores every kind by default, and only the kinds asked for otherwise', () => {
    expect(ALL_IGNORED_KINDS).toEqual(['dependencies', 'version-control', 'build-output']);
    expect(isIgnoredFolder('dist')).toBe(true);
    expect(isIgnoredFolder('dist', SOURCE_CONTROL_KINDS)).toBe(false);
    expect(isIgnoredFolder('node_modules', SOURCE_CONTROL_KINDS)).toBe(true);
    expect(isIgnoredFolder('.git', ['build-output'])).toBe(false);
  });

  it('matches whole folder names only', () => {
    for (const name of ['src', 'distribution', 'my-build', 'node_modules2', '.github', 'Dist']) expect(isIgnoredFolder(name)).toBe(false);
  });
});
