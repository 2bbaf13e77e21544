import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertConfiguredPath, configuredPathProblem } from '../../src/workspace/configured-folder.js';
import { tempDir } from '../support/config.js';

describe('configured folders', () => {
  it('accepts a real folder, and one that does not exist yet', () => {
    const base = tempDir('configured-');
    const workspace = join(base, 'workspace');
    mkdirSync(join(workspace, 'docs'), { recursive: true });
    expect(configuredPathProblem(join(workspace, 'docs'), 'docs folder', { workspaceRoot: workspace })).toBeNull();
    expect(configuredPathProblem(join(workspace, 'deployments'), 'deployments folder', { workspaceRoot: workspace })).toBeNull();
  });

  it('refuses a folder that is a link, and one reached through a link inside the workspace, naming no server path', () => {
    const base = tempDir('configured-');
    const workspace = join(base, 'workspace');
    const outside = join(base, 'outside');
    mkdirSync(join(outside, 'docs'), { recursive: true });
    mkdirSync(workspace);
    symlinkSync(join(outside, 'docs'), join(workspace, 'docs'));
    symlinkSync(outside, join(workspace, 'shared'));
    const linked = configuredPathProblem(join(workspace, 'docs'), 'docs folder', { workspaceRoot: workspace });
    expect(linked).toBe('the docs folder (docs) is a symbolic link; configure the folder it points to instead');
    const through = configuredPathProblem(join(workspace, 'shared', 'docs'), 'docs folder', { workspaceRoot: workspace });
    expect(through).toBe('the docs folder (shared/docs) is reached through a symbolic link at shared');
    expect(() => assertConfiguredPath(join(workspace, 'docs'), 'docs folder', { workspaceRoot: workspace })).toThrow(/symbolic link/);
  });

  it('checks only the last component of a folder the operator put outside the workspace', () => {
    const base = tempDir('configured-');
    const realLogs = join(base, 'real-logs');
    mkdirSync(realLogs);
    symlinkSync(base, join(base, 'via'));
    expect(configuredPathProblem(join(base, 'via', 'real-logs'), 'logs folder', { workspaceRoot: join(base, 'workspace') })).toBeNull();
    symlinkSync(realLogs, join(base, 'logs'));
    expect(configuredPathProblem(join(base, 'logs'), 'logs folder', { workspaceRoot: join(base, 'workspace'), logsDir: join(base, 'logs') })).toMatch(/logs folder \(logs\) is a symbolic link/);
  });
});
