import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { QaPayload } from '../../../agents/qa-verification-agent/read-input.js';
import { qaVerification, type QaDeps } from '../../../agents/qa-verification-agent/verify.js';
import { SAMPLE_PROJECT_DIR, SAMPLE_PROJECT_FILES } from '../../../src/demo/sample-project.js';
import { defineLane } from '../../../src/worker-sdk/lane-definition.js';
import { tempDir } from '../../support/config.js';
import { BUBBLEWRAP, NEEDS_BUBBLEWRAP, withoutBubblewrap } from '../../support/sandbox.js';

/** A node:test suite that leaves a mark in its project when it runs, so a test can tell whether anything ran. */
const MARKING_TEST = `import { test } from 'node:test';
import { writeFileSync } from 'node:fs';
test('leaves a mark', () => writeFileSync('ran.txt', 'ran'));
`;

/**
 * Passes only inside the sandbox: the sibling project is not there, the home folder is the
 * sandbox's own, only a handful of processes (its own) exist, and what it writes in its project
 * stays there.
 */
const CONFINED_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
test('sees its own project and nothing else of the host', () => {
  assert.equal(existsSync('../marking/package.json'), false);
  assert.equal(homedir(), '/tmp/home');
  assert.ok(readdirSync('/proc').filter((name) => /^\\d+$/.test(name)).length < 20);
  writeFileSync('written-inside.txt', 'kept');
});
`;

describe('qa-verification runs project code only in a sandbox the operator allows', () => {
  let workspaceRoot: string;
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(workspaceRoot, path)), { recursive: true });
    writeFileSync(join(workspaceRoot, path), content);
  };
  const lane = async (payload: QaPayload, deps: QaDeps = {}): Promise<Record<string, any>> => qaVerification(payload, { workspaceRoot, runId: 'unit' }, deps);
  const ran = () => existsSync(join(workspaceRoot, 'marking', 'ran.txt'));

  beforeAll(() => {
    workspaceRoot = tempDir('qa-sandbox-');
    write('marking/package.json', JSON.stringify({ name: 'marking', type: 'module', scripts: { test: 'node --test' } }));
    write('marking/test/mark.test.mjs', MARKING_TEST);
    write('confined/package.json', JSON.stringify({ name: 'confined', type: 'module', scripts: { test: 'node --test' } }));
    write('confined/test/confined.test.mjs', CONFINED_TEST);
    for (const [path, content] of Object.entries(SAMPLE_PROJECT_FILES)) write(join(SAMPLE_PROJECT_DIR, path), content);
  });
  beforeEach(() => rmSync(join(workspaceRoot, 'marking', 'ran.txt'), { force: true }));
  afterAll(() => rmSync(workspaceRoot, { recursive: true, force: true }));

  it('refuses execute mode without bubblewrap and without the opt-in, and runs nothing', async () => {
    for (const payload of [{ target: 'marking', mode: 'execute' as const }, { target: 'marking', mode: 'execute' as const, __sandbox: { allowUnsandboxed: false } }]) {
      const result = await lane(payload, { decideSandbox: withoutBubblewrap });
      expect(result).toMatchObject({ success: false, target: 'marking', mode: 'execute', specialistContract: { status: 'refused' } });
      expect(result.error).toMatch(/no sandbox is available on this host \(install bubblewrap\), and sandbox.allowUnsandboxed is not set; suite "full" of marking was not run/);
      expect(result.recommendedNextActions).toEqual([expect.stringMatching(/Install bubblewrap .*or set sandbox.allowUnsandboxed/)]);
      expect(result).not.toHaveProperty('sandbox');
      expect(ran()).toBe(false);
    }
  });

  it('still plans in dry-run mode without bubblewrap: it runs nothing anyway', async () => {
    const result = await lane({ target: 'marking' }, { decideSandbox: withoutBubblewrap });
    expect(result).toMatchObject({ success: true, mode: 'dry-run', script: 'test' });
    expect(ran()).toBe(false);
  });

  it('runs unsandboxed with the opt-in, and says so in the result and its summary', async () => {
    const result = await lane({ target: 'marking', mode: 'execute', __sandbox: { allowUnsandboxed: true } }, { decideSandbox: withoutBubblewrap });
    expect(result).toMatchObject({ success: true, verdict: 'passed', passed: 1, sandbox: 'none', sandboxNote: expect.stringContaining('ran UNSANDBOXED') });
    expect(result.operatorSummary).toMatch(/Ran UNSANDBOXED: bubblewrap is not available on this host and sandbox.allowUnsandboxed is true\.$/);
    expect(result.recommendedNextActions.join(' ')).toContain('apt-get install bubblewrap');
    expect(ran()).toBe(true);
  });

  it('reads the policy from the payload the worker was handed, past the payload check', async () => {
    const worker = defineLane('qa-verification', (payload, context) => qaVerification(payload, context, { decideSandbox: withoutBubblewrap }));
    const optedIn = await worker.run({ target: 'marking', mode: 'execute', __sandbox: { allowUnsandboxed: true } }, { workspaceRoot, runId: 'unit' });
    expect(optedIn).toMatchObject({ success: true, sandbox: 'none' });
    const notOptedIn = await worker.run({ target: 'marking', mode: 'execute', __sandbox: { allowUnsandboxed: 'yes' } }, { workspaceRoot, runId: 'unit' });
    expect(notOptedIn).toMatchObject({ success: false, error: expect.stringContaining('sandbox.allowUnsandboxed is not set') });
  });

  describe.skipIf(!BUBBLEWRAP)(`in bubblewrap${NEEDS_BUBBLEWRAP}`, () => {
    it("passes the demo sample project's real suite (npm run test, node --test), sandboxed", async () => {
      const result = await lane({ target: SAMPLE_PROJECT_DIR, mode: 'execute' });
      expect(result).toMatchObject({
        success: true,
        verdict: 'passed',
        runner: 'node-test',
        failed: 0,
        exitCode: 0,
        sandbox: 'bubblewrap',
        sandboxNote: expect.stringContaining('bubblewrap sandbox'),
        specialistContract: { status: 'completed' },
      });
      expect(result.passed).toBeGreaterThan(0);
      expect(result.operatorSummary).not.toContain('UNSANDBOXED');
    });

    it('gives the suite its project, writable, and nothing else of the host', async () => {
      const result = await lane({ target: 'confined', mode: 'execute' });
      expect(result, result.outputTail).toMatchObject({ success: true, verdict: 'passed', passed: 1, failed: 0, sandbox: 'bubblewrap' });
      expect(readFileSync(join(workspaceRoot, 'confined', 'written-inside.txt'), 'utf8')).toBe('kept');
    });
  });
});
