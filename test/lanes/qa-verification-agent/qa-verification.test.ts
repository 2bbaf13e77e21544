import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QaPayload } from '../../../agents/qa-verification-agent/read-input.js';
import { qaVerification } from '../../../agents/qa-verification-agent/verify.js';
import { hostSandbox } from '../../support/sandbox.js';

/** A project whose `test` script is node:test over one passing and one failing file. */
function writeProject(dir: string, scripts: Record<string, string>): void {
  mkdirSync(join(dir, 'test'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'cart-service', version: '1.0.0', private: true, scripts }, null, 2));
  writeFileSync(
    join(dir, 'test', 'total.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('sums line items', () => assert.equal(2 + 3, 5));\n",
  );
  writeFileSync(
    join(dir, 'test', 'discount.test.mjs'),
    [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "test('applies a ten percent discount', () => assert.equal(100 * 0.9, 91));",
      "test('ignores an expired code', { skip: 'clock fixture missing' }, () => {});",
      '',
    ].join('\n'),
  );
}

describe('qa-verification lane', () => {
  let workspaceRoot: string;
  /** The lane's answer as the run record holds it: any of its shapes, read field by field. */
  const lane = async (payload: QaPayload): Promise<Record<string, any>> =>
    qaVerification(payload, { workspaceRoot, runId: 'unit' }, { decideSandbox: hostSandbox });

  beforeAll(() => {
    workspaceRoot = mkdtempSync(join(tmpdir(), 'qa-lane-'));
    writeProject(join(workspaceRoot, 'services', 'cart'), { test: 'node --test test/', 'test:smoke': 'node --test test/total.test.mjs' });
    writeProject(join(workspaceRoot, 'services', 'hangs'), { test: 'node -e "setInterval(() => {}, 1000)"' });
    writeProject(join(workspaceRoot, 'services', 'broken'), { test: 'node ./does-not-exist.js' });
    writeProject(join(workspaceRoot, 'services', 'plain'), { test: 'node -e "console.log(\'checked 3 fixtures\')"' });
    writeProject(join(workspaceRoot, 'services', 'noscript'), { build: 'tsc' });
  });
  afterAll(() => rmSync(workspaceRoot, { recursive: true, force: true }));

  it('plans test:smoke for suite smoke and runs nothing in dry-run', async () => {
    const result = await lane({ target: 'services/cart', suite: 'smoke', mode: 'dry-run' });
    expect(result).toMatchObject({
      success: true,
      mode: 'dry-run',
      script: 'test:smoke',
      plan: [{ command: 'npm', args: ['run', 'test:smoke'], cwd: 'services/cart', script: 'test:smoke' }],
      specialistContract: { status: 'completed' },
    });
    expect(result).not.toHaveProperty('passed');
    expect(result.operatorSummary).toContain('Nothing was run');
  });

  it('plans the test script for a suite without its own script, and says so', async () => {
    const result = await lane({ target: 'services/cart', suite: 'unit', mode: 'dry-run' });
    expect(result).toMatchObject({ success: true, script: 'test', plan: [{ args: ['run', 'test'] }] });
    expect(result.recommendedNextActions.join(' ')).toContain('"test:unit"');
  });

  it('runs the suite and reports the failing test by name as a finding', async () => {
    const result = await lane({ target: 'services/cart', suite: 'full', mode: 'execute' });
    expect(result).toMatchObject({
      success: true,
      mode: 'execute',
      verdict: 'failed',
      runner: 'node-test',
      passed: 1,
      failed: 1,
      skipped: 1,
      exitCode: 1,
      failures: [{ name: 'applies a ten percent discount', file: 'services/cart/test/discount.test.mjs' }],
      specialistContract: { status: 'completed' },
    });
    expect(result.outputTail).toMatch(/# fail 1/);
    expect(result.operatorSummary).toContain('applies a ten percent discount');
    expect(result.durationMs).toBeGreaterThan(0);
  });

  it('reports a passing suite as passed', async () => {
    const result = await lane({ target: 'services/cart', suite: 'smoke', mode: 'execute' });
    expect(result).toMatchObject({ success: true, verdict: 'passed', passed: 1, failed: 0, failures: [], exitCode: 0 });
  });

  it('fails the run when the suite outlives its timeout, killing the runner', async () => {
    const result = await lane({ target: 'services/hangs', mode: 'execute', timeoutMs: 1500 });
    expect(result).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
    expect(result.error).toMatch(/did not finish within 1500 ms/);
  });

  it('fails the run when the script exits non-zero without any test summary', async () => {
    const result = await lane({ target: 'services/broken', mode: 'execute' });
    expect(result).toMatchObject({ success: false });
    expect(result.error).toMatch(/exited 1 without a test summary/);
    expect(result.outputTail).toContain('does-not-exist.js');
  });

  it('marks a suite that exits 0 without a readable summary as partial, counts unknown', async () => {
    const result = await lane({ target: 'services/plain', mode: 'execute' });
    expect(result).toMatchObject({ success: true, verdict: 'passed', runner: null, passed: null, specialistContract: { status: 'partial' } });
    expect(result.outputTail).toContain('checked 3 fixtures');
  });

  it('refuses a target without package.json, without a test script, or outside the workspace', async () => {
    const missing = await lane({ target: 'services/nowhere', mode: 'dry-run' });
    expect(missing).toMatchObject({ success: false, error: expect.stringContaining('does not exist') });
    mkdirSync(join(workspaceRoot, 'docs'), { recursive: true });
    const noManifest = await lane({ target: 'docs' });
    expect(noManifest).toMatchObject({ success: false, error: expect.stringContaining('has no package.json') });
    const noScript = await lane({ target: 'services/noscript', suite: 'smoke' });
    expect(noScript).toMatchObject({ success: false, error: expect.stringContaining('neither a "test:smoke" nor a "test" script') });
    const outside = await lane({ target: '../elsewhere' });
    expect(outside).toMatchObject({ success: false, error: expect.stringContaining('escapes the workspace root') });
  });
});
