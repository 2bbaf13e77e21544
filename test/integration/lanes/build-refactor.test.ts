import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import { BUBBLEWRAP } from '../../support/sandbox.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');
/** The suite runs in bubblewrap where the host has it (the default policy), else by the opt-in (test/integration/security covers the sandbox itself). */
const HOST_SANDBOX_POLICY = { allowUnsandboxed: !BUBBLEWRAP };
const SANDBOX = BUBBLEWRAP ? 'bubblewrap' : 'none';

const GREETING_JS = `export function greet(name) {
  return 'Hello, ' + name;
}
`;

/** Passes only after the change renames greet to welcome. */
const GREETING_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { welcome } from '../src/greeting.js';

test('welcome greets by name', () => {
  assert.equal(welcome('Ada'), 'Welcome, Ada');
});
`;

describe('build-refactor lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let workspace: string;

  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  };
  const read = (path: string) => readFileSync(join(workspace, path), 'utf8');

  /** Triggers a held build-refactor, checks nothing ran yet, approves it and waits for the replay. */
  async function approveAndRun(payload: Record<string, unknown>, watched: string) {
    const before = read(watched);
    const held = await api.trigger('build-refactor', payload);
    expect(held.status).toBe(202);
    const taskId: string = held.body.taskId;
    const heldRun = await api.run(held.body.runId);
    expect(heldRun.body.approval).toMatchObject({ required: true, status: 'pending' });
    expect(read(watched)).toBe(before);

    const decision = await api.post(`/api/approvals/${taskId}/decision`, { decision: 'approved', note: 'reviewed the patch' });
    expect(decision.status).toBe(200);
    expect(decision.body.replayRunId).toBe(`approval-replay:${taskId}`);
    return { taskId, run: await waitForTerminal(api, `approval-replay:${taskId}`, 60_000) };
  }

  beforeAll(async () => {
    const base = tempDir();
    workspace = join(base, 'workspace');
    write('apps/greeter/package.json', JSON.stringify({ name: 'greeter', type: 'module', scripts: { test: 'node --test test/' } }));
    write('apps/greeter/src/greeting.js', GREETING_JS);
    write('apps/greeter/src/index.js', "import { greet } from './greeting.js';\n\nconsole.log(greet('world'));\n");
    write('apps/greeter/test/greeting.test.mjs', GREETING_TEST);
    write('apps/broken/package.json', JSON.stringify({ name: 'broken', scripts: { test: 'node -e "process.exit(1)"' } }));
    write('apps/broken/src/config.js', 'export const RETRIES = 3;\n');
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR, sandbox: HOST_SANDBOX_POLICY }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('applies an approved change set and verifies it with the project tests', async () => {
    const { taskId, run } = await approveAndRun(
      {
        type: 'refactor',
        scope: 'apps/greeter',
        intent: 'Rename greet to welcome',
        constraints: { maxFilesChanged: 3, runTests: true },
        changes: [
          { path: 'apps/greeter/src/greeting.js', search: "export function greet(name) {\n  return 'Hello, ' + name;", replace: "export function welcome(name) {\n  return 'Welcome, ' + name;" },
          { path: 'apps/greeter/src/index.js', content: "import { welcome } from './greeting.js';\n\nconsole.log(welcome('world'));\n" },
        ],
      },
      'apps/greeter/src/greeting.js',
    );

    expect(run.status).toBe('success');
    const result = run.result;
    expect(result.success).toBe(true);
    expect(result.filesChanged.map((f: { path: string; action: string }) => [f.path, f.action])).toEqual([
      ['apps/greeter/src/greeting.js', 'edited'],
      ['apps/greeter/src/index.js', 'edited'],
    ]);
    expect(result.verification).toMatchObject({ runner: 'npm', script: 'test', verdict: 'passed', exitCode: 0, passed: 1, failed: 0, sandbox: SANDBOX });
    expect(result.rolledBack).toBe(false);
    expect(result.governance).toMatchObject({ scope: 'apps/greeter', maxFilesChanged: 3, approvedTaskId: taskId });
    expect(read('apps/greeter/src/greeting.js')).toContain("export function welcome(name) {\n  return 'Welcome, ' + name;");
    expect(read('apps/greeter/src/index.js')).toContain("console.log(welcome('world'));");
  });

  it('fails an approved run whose verification fails and leaves the files as they were', async () => {
    const { run } = await approveAndRun(
      {
        scope: 'apps/broken',
        testRunner: { script: 'test' },
        changes: [{ path: 'apps/broken/src/config.js', search: 'RETRIES = 3', replace: 'RETRIES = 5' }],
      },
      'apps/broken/src/config.js',
    );

    expect(run.status).toBe('failed');
    expect(run.result).toMatchObject({ success: false, rolledBack: true, filesChanged: [] });
    expect(run.result.verification).toMatchObject({ verdict: 'failed', exitCode: 1, sandbox: SANDBOX });
    expect(run.result.revertedFiles[0]).toMatchObject({ path: 'apps/broken/src/config.js', action: 'edited' });
    expect(read('apps/broken/src/config.js')).toBe('export const RETRIES = 3;\n');
  });
});
