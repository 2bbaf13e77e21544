import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRefactor, type BuildRefactorOptions, type BuildRefactorResult } from '../../../agents/build-refactor-agent/build-refactor.js';
import type { BuildRefactorPayload } from '../../../agents/build-refactor-agent/read-input.js';
import { tempDir } from '../../support/config.js';
import { BUBBLEWRAP, NEEDS_BUBBLEWRAP, withoutBubblewrap } from '../../support/sandbox.js';

const RATE_JS = 'export const RATE = 0.2;\n';

/**
 * Passes only once the change set raised the rate, so a passing verification proves the script
 * saw the file the lane had just changed; it also leaves a mark, so a test can tell it ran, and
 * checks that no other project of the workspace is within its reach when sandboxed.
 */
const RATE_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, writeFileSync } from 'node:fs';
import { RATE } from '../src/rate.js';
test('the rate was raised', () => {
  writeFileSync('ran.txt', 'ran');
  assert.equal(RATE, 0.25);
  if (process.env.HOME === '/tmp/home') assert.equal(existsSync('../ledger/package.json'), false);
});
`;

const RAISE_RATE = { path: 'billing/src/rate.js', search: '0.2', replace: '0.25' };

describe('build-refactor verifies only in a sandbox the operator allows', () => {
  let workspace: string;
  const read = (path: string) => readFileSync(join(workspace, path), 'utf8');
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(workspace, path)), { recursive: true });
    writeFileSync(join(workspace, path), content);
  };
  const run = (payload: BuildRefactorPayload, options: BuildRefactorOptions = {}): Promise<BuildRefactorResult> =>
    buildRefactor(payload, { workspaceRoot: workspace, runId: 'approval-replay:task-1' }, options);
  const ran = () => existsSync(join(workspace, 'billing', 'ran.txt'));

  beforeEach(() => {
    workspace = tempDir('refactor-sandbox-');
    write('billing/package.json', JSON.stringify({ name: 'billing', type: 'module', scripts: { test: 'node --test' } }));
    write('billing/src/rate.js', RATE_JS);
    write('billing/test/rate.test.mjs', RATE_TEST);
    write('ledger/package.json', JSON.stringify({ name: 'ledger' }));
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('refuses a verified change set without bubblewrap and without the opt-in, changing and running nothing', async () => {
    for (const payload of [
      { scope: 'billing', constraints: { runTests: true }, changes: [RAISE_RATE] },
      { scope: 'billing', testRunner: { script: 'test' }, changes: [RAISE_RATE], __sandbox: { allowUnsandboxed: false } },
    ]) {
      const result = await run(payload, { decideSandbox: withoutBubblewrap });
      expect(result).toMatchObject({ success: false, filesChanged: [], verification: null, rolledBack: false, specialistContract: { status: 'refused' } });
      expect(result.operatorSummary).toMatch(/^Refused: the change set was not applied and no file changed: project code is not run: no sandbox is available on this host/);
      expect(result.recommendedNextActions).toEqual([expect.stringMatching(/Install bubblewrap .*or set sandbox.allowUnsandboxed/)]);
      expect(read('billing/src/rate.js')).toBe(RATE_JS);
      expect(ran()).toBe(false);
    }
  });

  it('applies a change set without verification on a host without bubblewrap: no project code runs', async () => {
    const result = await run({ scope: 'billing', changes: [RAISE_RATE] }, { decideSandbox: withoutBubblewrap });
    expect(result).toMatchObject({ success: true, verification: null });
    expect(read('billing/src/rate.js')).toBe('export const RATE = 0.25;\n');
    expect(ran()).toBe(false);
  });

  it('verifies unsandboxed with the opt-in, and says so in the verification and the summary', async () => {
    const result = await run(
      { scope: 'billing', testRunner: { script: 'test' }, changes: [RAISE_RATE], __sandbox: { allowUnsandboxed: true } },
      { decideSandbox: withoutBubblewrap },
    );
    expect(result).toMatchObject({ success: true, verification: { verdict: 'passed', passed: 1, sandbox: 'none', sandboxNote: expect.stringContaining('ran UNSANDBOXED') } });
    expect(result.operatorSummary).toContain('npm run test in billing passed (1 passed, 0 failed) (ran UNSANDBOXED');
    expect(result.recommendedNextActions.join(' ')).toContain('apt-get install bubblewrap');
    expect(ran()).toBe(true);
  });

  it('rolls back an unsandboxed verification that fails and still names the sandbox', async () => {
    const result = await run(
      { scope: 'billing', testRunner: { script: 'test' }, changes: [{ ...RAISE_RATE, replace: '0.3' }], __sandbox: { allowUnsandboxed: true } },
      { decideSandbox: withoutBubblewrap },
    );
    expect(result).toMatchObject({ success: false, rolledBack: true, verification: { verdict: 'failed', sandbox: 'none' } });
    expect(result.error).toContain('(ran UNSANDBOXED');
    expect(read('billing/src/rate.js')).toBe(RATE_JS);
  });

  describe.skipIf(!BUBBLEWRAP)(`in bubblewrap${NEEDS_BUBBLEWRAP}`, () => {
    it('verifies against the files it just changed, in the project bound writable at its own path', async () => {
      const result = await run({ scope: 'billing', testRunner: { script: 'test' }, changes: [RAISE_RATE] });
      expect(result, result.verification?.outputTail).toMatchObject({
        success: true,
        verification: { verdict: 'passed', passed: 1, failed: 0, exitCode: 0, sandbox: 'bubblewrap', sandboxNote: expect.stringContaining('bubblewrap sandbox') },
      });
      expect(result.operatorSummary).not.toContain('UNSANDBOXED');
      expect(read('billing/src/rate.js')).toBe('export const RATE = 0.25;\n');
      expect(ran()).toBe(true);
    });
  });
});
