import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SAMPLE_DOCS } from '../../src/demo/sample-docs.js';
import { SAMPLE_PROJECT_DIR, SAMPLE_PROJECT_FILES } from '../../src/demo/sample-project.js';
import { seedDemoWorkspace } from '../../src/demo/seed-workspace.js';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { loadOperatorTypes } from '../../src/operator-types/load.js';
import { tempDir } from '../support/config.js';

function freshWorkspace() {
  const workspaceRoot = join(tempDir('seed-'), 'workspace');
  return { workspaceRoot, docsPath: join(workspaceRoot, 'docs') };
}

describe('seedDemoWorkspace', () => {
  it('writes operator runbooks and a sample project into an absent workspace', () => {
    const targets = freshWorkspace();
    const report = seedDemoWorkspace(targets);

    expect(report).toEqual({ docs: 'seeded', sampleProject: 'seeded', sampleProjectPath: join(targets.workspaceRoot, SAMPLE_PROJECT_DIR) });
    const docs = readdirSync(targets.docsPath).sort();
    expect(docs).toEqual(['README.md', 'approvals.md', 'reading-runs.md', 'rotating-keys.md']);
    for (const doc of docs) expect(readFileSync(join(targets.docsPath, doc), 'utf8')).toMatch(/^# \S/);
    for (const file of Object.keys(SAMPLE_PROJECT_FILES)) expect(existsSync(join(report.sampleProjectPath, file))).toBe(true);
  });

  it('makes a project whose metadata, licence and settings file are what lanes look for', () => {
    const manifest = JSON.parse(SAMPLE_PROJECT_FILES['package.json']!) as Record<string, unknown>;
    expect(manifest).toMatchObject({ name: 'sample-app', version: '1.0.0', license: 'MIT', scripts: { test: 'node --test' } });
    expect(SAMPLE_PROJECT_FILES.LICENSE).toMatch(/^MIT License/);
    expect(SAMPLE_PROJECT_FILES['.env.example']).toMatch(/^SUPPLIER_API_TOKEN=$/m);
    // The modules import each other, so a code index has edges to find.
    expect(SAMPLE_PROJECT_FILES['src/index.js']).toContain("from './parse-inventory.js'");
    expect(SAMPLE_PROJECT_FILES['src/index.js']).toContain("from './reorder.js'");
  });

  it("makes a project whose own tests pass with its test script (node --test)", () => {
    const { sampleProjectPath } = seedDemoWorkspace(freshWorkspace());
    const run = spawnSync(process.execPath, ['--test'], { cwd: sampleProjectPath, encoding: 'utf8', timeout: 60_000 });
    expect(run.status, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/# pass 5\b/);
    expect(run.stdout).toMatch(/# fail 0\b/);
  });

  it('never touches a docs folder or sample project that already has content', () => {
    const targets = freshWorkspace();
    const project = join(targets.workspaceRoot, SAMPLE_PROJECT_DIR);
    mkdirSync(targets.docsPath, { recursive: true });
    mkdirSync(project, { recursive: true });
    writeFileSync(join(targets.docsPath, 'approvals.md'), 'our own approvals page');
    writeFileSync(join(project, 'package.json'), '{"name":"mine"}');

    expect(seedDemoWorkspace(targets)).toMatchObject({ docs: 'kept', sampleProject: 'kept' });
    expect(readdirSync(targets.docsPath)).toEqual(['approvals.md']);
    expect(readFileSync(join(targets.docsPath, 'approvals.md'), 'utf8')).toBe('our own approvals page');
    expect(readdirSync(project)).toEqual(['package.json']);
    expect(readFileSync(join(project, 'package.json'), 'utf8')).toBe('{"name":"mine"}');
  });

  it('seeds each part on its own: an empty docs folder is filled next to an existing project', () => {
    const targets = freshWorkspace();
    mkdirSync(targets.docsPath, { recursive: true });
    mkdirSync(join(targets.workspaceRoot, SAMPLE_PROJECT_DIR, 'src'), { recursive: true });

    expect(seedDemoWorkspace(targets)).toMatchObject({ docs: 'seeded', sampleProject: 'kept' });
    expect(readdirSync(targets.docsPath).sort()).toEqual(Object.keys(SAMPLE_DOCS).sort());
  });

  it('uses the configured docsPath, wherever it is, and keeps everything on a second run', () => {
    const targets = { workspaceRoot: join(tempDir('seed-'), 'ws'), docsPath: join(tempDir('seed-docs-'), 'runbooks') };
    expect(seedDemoWorkspace(targets)).toMatchObject({ docs: 'seeded', sampleProject: 'seeded' });
    expect(existsSync(join(targets.docsPath, 'rotating-keys.md'))).toBe(true);
    expect(existsSync(join(targets.workspaceRoot, 'docs'))).toBe(false);
    expect(seedDemoWorkspace(targets)).toMatchObject({ docs: 'kept', sampleProject: 'kept' });
  });
  it('installs the example operator task types into an empty task types folder, and keeps an operator\'s own', () => {
    const targets = { ...freshWorkspace(), taskTypesDir: join(tempDir('seed-types-'), 'task-types') };
    expect(seedDemoWorkspace(targets)).toMatchObject({ taskTypes: 'seeded' });
    const types = loadOperatorTypes(targets.taskTypesDir, new Set(BUILT_IN_REGISTRY.all().map((t) => t.type)));
    expect(types.map((t) => t.taskType.type).sort()).toEqual(['folder-inventory', 'word-stats']);
    const own = { ...freshWorkspace(), taskTypesDir: join(tempDir('seed-types-'), 'task-types') };
    mkdirSync(join(own.taskTypesDir, 'mine'), { recursive: true });
    expect(seedDemoWorkspace(own)).toMatchObject({ taskTypes: 'kept' });
    expect(readdirSync(own.taskTypesDir)).toEqual(['mine']);
  });
});
