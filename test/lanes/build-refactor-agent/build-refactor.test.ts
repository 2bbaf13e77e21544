import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildRefactor, type BuildRefactorResult } from '../../../agents/build-refactor-agent/build-refactor.js';
import type { BuildRefactorPayload } from '../../../agents/build-refactor-agent/read-input.js';
import { parseTestCounts } from '../../../agents/build-refactor-agent/test-counts.js';
import { hostSandbox } from '../../support/sandbox.js';

const MATH_JS = `// Arithmetic helpers shared by the invoice code.
export function add(a, b) {
  return a + b;
}

export function multiply(a, b) {
  return a * b;
}
`;

const INVOICE_JS = `import { add, multiply } from './math.js';

export function invoiceTotal(lines) {
  return lines.reduce((total, line) => add(total, multiply(line.qty, line.price)), 0);
}
`;

const FORMAT_JS = `export function formatCents(cents) {
  return (cents / 100).toFixed(2);
}
`;

/** Passes only once math.js exports `sum`, so a passing run proves the test saw the edit. */
const MATH_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sum } from '../src/math.js';

test('sum adds two numbers', () => {
  assert.equal(sum(2, 3), 5);
});
`;

function write(root: string, path: string, content: string): void {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}

/** Every file and folder under `root` with the hash of its bytes: equal snapshots mean nothing changed. */
function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const rel = relative(root, full);
      if (entry.isDirectory()) {
        out[`${rel}/`] = 'dir';
        walk(full);
      } else {
        out[rel] = createHash('sha256').update(readFileSync(full)).digest('hex');
      }
    }
  };
  walk(root);
  return out;
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('build-refactor lane', () => {
  let workspace: string;
  const read = (path: string) => readFileSync(join(workspace, path), 'utf8');
  const run = (payload: BuildRefactorPayload, runId: string | null = 'run-1', verificationTimeoutMs?: number): Promise<BuildRefactorResult> =>
    buildRefactor(payload, { workspaceRoot: workspace, runId }, { decideSandbox: hostSandbox, ...(verificationTimeoutMs ? { verificationTimeoutMs } : {}) });

  beforeEach(() => {
    workspace = mkdtempSync(join(tmpdir(), 'build-refactor-'));
    write(workspace, 'projects/billing/package.json', JSON.stringify({
      name: 'billing',
      type: 'module',
      scripts: { test: 'node --test test/', 'test:slow': 'node -e "setTimeout(() => {}, 60000)"', deploy: 'node -e "process.exit(0)"' },
    }, null, 2));
    write(workspace, 'projects/billing/src/math.js', MATH_JS);
    write(workspace, 'projects/billing/src/invoice.js', INVOICE_JS);
    write(workspace, 'projects/billing/src/format.js', FORMAT_JS);
    write(workspace, 'projects/billing/test/math.test.mjs', MATH_TEST);
    write(workspace, 'projects/billing/README.md', '# Billing\n\nInvoice maths.\n');
    write(workspace, 'projects/shipping/package.json', JSON.stringify({ name: 'shipping', scripts: { test: 'node -e "process.exit(1)"' } }));
    write(workspace, 'projects/shipping/src/rates.js', 'export const BASE_RATE = 499;\n');
    write(workspace, 'projects/shipping/src/zones.js', "export const ZONES = ['eu', 'us'];\n");
  });
  afterEach(() => rmSync(workspace, { recursive: true, force: true }));

  it('applies a multi-file change set, verifies it with the project test script and records hashes', async () => {
    const result = await run({
      type: 'refactor',
      scope: 'projects/billing',
      intent: 'Rename add to sum',
      constraints: { maxFilesChanged: 5 },
      testRunner: { script: 'test' },
      changes: [
        { path: 'projects/billing/src/math.js', search: 'export function add(a, b) {', replace: 'export function sum(a, b) {' },
        { path: 'projects/billing/src/invoice.js', search: "import { add, multiply } from './math.js';", replace: "import { multiply, sum } from './math.js';" },
        { path: 'projects/billing/src/invoice.js', search: 'add(total, ', replace: 'sum(total, ' },
        { path: 'projects/billing/src/money.js', content: "export const CURRENCY = 'EUR';\n" },
        { path: 'projects/billing/README.md', delete: true },
      ],
    });

    expect(result.success).toBe(true);
    expect(result.specialistContract.status).toBe('completed');
    expect(read('projects/billing/src/math.js')).toBe(MATH_JS.replace('function add(', 'function sum('));
    expect(read('projects/billing/src/invoice.js')).toContain("import { multiply, sum } from './math.js';");
    expect(read('projects/billing/src/invoice.js')).toContain('sum(total, multiply(line.qty, line.price))');
    expect(read('projects/billing/src/money.js')).toBe("export const CURRENCY = 'EUR';\n");
    expect(existsSync(join(workspace, 'projects/billing/README.md'))).toBe(false);

    const byPath = Object.fromEntries(result.filesChanged.map((f) => [f.path, f]));
    expect(Object.keys(byPath).sort()).toEqual([
      'projects/billing/README.md', 'projects/billing/src/invoice.js', 'projects/billing/src/math.js', 'projects/billing/src/money.js',
    ]);
    expect(byPath['projects/billing/src/math.js']).toEqual({
      path: 'projects/billing/src/math.js',
      action: 'edited',
      bytesBefore: Buffer.byteLength(MATH_JS),
      bytesAfter: Buffer.byteLength(read('projects/billing/src/math.js')),
      sha256Before: sha256(MATH_JS),
      sha256After: sha256(read('projects/billing/src/math.js')),
    });
    expect(byPath['projects/billing/src/money.js']).toMatchObject({ action: 'created', bytesBefore: null, sha256Before: null });
    expect(byPath['projects/billing/README.md']).toMatchObject({ action: 'deleted', bytesAfter: null, sha256After: null });

    expect(result.verification).toMatchObject({
      runner: 'npm', script: 'test', command: 'npm run test', project: 'projects/billing', verdict: 'passed', exitCode: 0, passed: 1, failed: 0,
    });
    expect(result.rolledBack).toBe(false);
    expect(result.governance).toMatchObject({ scope: 'projects/billing', maxFilesChanged: 5, changeType: 'refactor', intent: 'Rename add to sum' });
    expect(result.operatorSummary).toMatch(/Applied 4 files in projects\/billing \(2 edited, 1 created, 1 deleted\); npm run test in projects\/billing passed/);
    expect(readdirSync(join(workspace, 'projects/billing/src')).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a change set touching more files than maxFilesChanged and changes nothing', async () => {
    const before = snapshot(workspace);
    const result = await run({
      scope: 'projects/billing',
      constraints: { maxFilesChanged: 2 },
      changes: [
        { path: 'projects/billing/src/math.js', search: 'add(a, b)', replace: 'sum(a, b)' },
        { path: 'projects/billing/src/invoice.js', search: 'add(total, ', replace: 'sum(total, ' },
        { path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.specialistContract).toMatchObject({ status: 'refused', refusalReason: expect.stringMatching(/touches 3 files; constraints.maxFilesChanged allows 2/) });
    expect(result.filesChanged).toEqual([]);
    expect(snapshot(workspace)).toEqual(before);
    expect(read('projects/billing/src/math.js')).toBe(MATH_JS);
  });

  it('refuses a path outside the scope, in or out of the workspace, and changes nothing', async () => {
    const before = snapshot(workspace);
    const result = await run({
      scope: 'projects/billing',
      changes: [
        { path: 'projects/billing/src/math.js', search: 'add(a, b)', replace: 'sum(a, b)' },
        { path: 'projects/shipping/src/rates.js', content: 'export const BASE_RATE = 0;\n' },
        { path: '../outside.js', content: 'escaped\n' },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.problems).toEqual([
      'changes[1]: path "projects/shipping/src/rates.js" is outside the scope "projects/billing"',
      expect.stringMatching(/^changes\[2\]: path "..\/outside.js" escapes the workspace root/),
    ]);
    expect(snapshot(workspace)).toEqual(before);
    expect(existsSync(join(dirname(workspace), 'outside.js'))).toBe(false);
  });

  it('refuses a symbolic link inside the scope that leads out of it', async () => {
    symlinkSync(join(workspace, 'projects/shipping/src'), join(workspace, 'projects/billing/shipping-src'));
    const result = await run({ scope: 'projects/billing', changes: [{ path: 'projects/billing/shipping-src/rates.js', content: 'x\n' }] });
    expect(result.success).toBe(false);
    expect(result.error).toMatch(/outside the scope "projects\/billing" once its symbolic links are resolved/);
    expect(read('projects/shipping/src/rates.js')).toBe('export const BASE_RATE = 499;\n');
  });

  it('leaves the first file untouched when the search text of the second of three is missing', async () => {
    const before = snapshot(workspace);
    const result = await run({
      scope: 'projects/billing/src',
      changes: [
        { path: 'projects/billing/src/math.js', search: 'add(a, b)', replace: 'sum(a, b)' },
        { path: 'projects/billing/src/invoice.js', search: 'subtract(total, ', replace: 'sum(total, ' },
        { path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.problems).toEqual(['changes[1] (projects/billing/src/invoice.js): search text not found']);
    expect(result.operatorSummary).toMatch(/no file changed/);
    expect(read('projects/billing/src/math.js')).toBe(MATH_JS);
    expect(snapshot(workspace)).toEqual(before);
  });

  it('refuses an ambiguous search text instead of guessing which occurrence is meant', async () => {
    const result = await run({
      scope: 'projects/billing',
      changes: [{ path: 'projects/billing/src/math.js', search: 'return a', replace: 'return b' }],
    });
    expect(result.success).toBe(false);
    expect(result.problems[0]).toMatch(/search text found 2 times; it must match exactly once/);
    expect(read('projects/billing/src/math.js')).toBe(MATH_JS);
  });

  it('inserts replacement text literally', async () => {
    const result = await run({
      scope: 'projects/billing',
      changes: [{ path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: "toFixed(2).replace('$&', '$$')" }],
    });
    expect(result.success).toBe(true);
    expect(read('projects/billing/src/format.js')).toContain("toFixed(2).replace('$&', '$$')");
  });

  it('rolls back every change when the verification fails', async () => {
    const before = snapshot(workspace);
    const result = await run({
      scope: 'projects/shipping',
      constraints: { runTests: true },
      changes: [
        { path: 'projects/shipping/src/rates.js', search: '499', replace: '599' },
        { path: 'projects/shipping/src/zones.js', content: "export const ZONES = ['eu', 'us', 'uk'];\n" },
        { path: 'projects/shipping/src/new/express.js', content: 'export const EXPRESS = true;\n' },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.rolledBack).toBe(true);
    expect(result.filesChanged).toEqual([]);
    expect(result.revertedFiles.map((f) => [f.path, f.action])).toEqual([
      ['projects/shipping/src/rates.js', 'edited'],
      ['projects/shipping/src/zones.js', 'edited'],
      ['projects/shipping/src/new/express.js', 'created'],
    ]);
    expect(result.verification).toMatchObject({ script: 'test', verdict: 'failed', exitCode: 1, project: 'projects/shipping' });
    expect(result.specialistContract).toMatchObject({ status: 'escalated', escalationReason: expect.stringMatching(/npm run test in projects\/shipping failed with exit code 1( \(ran UNSANDBOXED[^)]*\))?; every change was rolled back/) });
    expect(read('projects/shipping/src/rates.js')).toBe('export const BASE_RATE = 499;\n');
    expect(existsSync(join(workspace, 'projects/shipping/src/new'))).toBe(false);
    expect(snapshot(workspace)).toEqual(before);
  });

  it('kills a verification that runs past its timeout and rolls back', async () => {
    const before = snapshot(workspace);
    const started = Date.now();
    const result = await run(
      { scope: 'projects/billing', testRunner: { script: 'test:slow' }, changes: [{ path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' }] },
      'run-slow',
      1_500,
    );
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(result).toMatchObject({ success: false, rolledBack: true });
    expect(result.verification?.verdict).toBe('timed-out');
    expect(snapshot(workspace)).toEqual(before);
  });

  it('restores the files already written when a later write fails', async () => {
    const before = snapshot(workspace);
    // The planner sees a new file; writing it fails because its "folder" math.js is a file.
    const result = await run({
      scope: 'projects/billing',
      changes: [
        { path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' },
        { path: 'projects/billing/src/math.js/extra.js', content: 'export {};\n' },
      ],
    });
    expect(result.success).toBe(false);
    expect(result.rolledBack).toBe(true);
    expect(result.error).toMatch(/could not write projects\/billing\/src\/math.js\/extra.js/);
    expect(read('projects/billing/src/format.js')).toBe(FORMAT_JS);
    expect(snapshot(workspace)).toEqual(before);
  });

  it('refuses a verification script outside the whitelist or missing from package.json, before changing anything', async () => {
    const change = { path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' };
    const deploy = await run({ scope: 'projects/billing', testRunner: { script: 'deploy' }, changes: [change] });
    expect(deploy.success).toBe(false);
    expect(deploy.error).toMatch(/"deploy" is not allowed; the lane runs only test, test:<name>, lint, typecheck or build/);
    const lint = await run({ scope: 'projects/billing', testRunner: { script: 'lint' }, changes: [change] });
    expect(lint.error).toMatch(/projects\/billing\/package.json defines no "lint" script \(verification scripts it has: test, test:slow\)/);
    expect(read('projects/billing/src/format.js')).toBe(FORMAT_JS);
  });

  it('refuses an intent-only request on the deterministic path', async () => {
    const result = await run({ type: 'refactor', scope: 'projects/billing', intent: 'Extract the rounding into a helper', constraints: { maxFilesChanged: 3, runTests: true } });
    expect(result.success).toBe(false);
    expect(result.specialistContract.status).toBe('refused');
    expect(result.specialistContract.refusalReason).toMatch(/explicit changes\[\] are required on the deterministic path/);
    expect(result.verification).toBeNull();
    expect(result.governance.intent).toBe('Extract the rounding into a helper');
  });

  it('refuses a scope that does not exist or leaves the workspace', async () => {
    const missing = await run({ scope: 'projects/nope', changes: [{ path: 'projects/nope/a.js', content: 'x' }] });
    expect(missing.error).toMatch(/scope "projects\/nope" does not exist/);
    const escaping = await run({ scope: '../', changes: [{ path: 'a.js', content: 'x' }] });
    expect(escaping.error).toMatch(/escapes the workspace root/);
  });

  it('records the approval of a replayed run in its governance', async () => {
    const result = await run(
      { scope: 'projects/billing', changes: [{ path: 'projects/billing/src/format.js', search: 'toFixed(2)', replace: 'toFixed(3)' }] },
      'approval-replay:task-42',
    );
    expect(result.success).toBe(true);
    expect(result.verification).toBeNull();
    expect(result.governance).toMatchObject({ approvedTaskId: 'task-42', maxFilesChanged: 10, approvalNote: expect.stringMatching(/approved by an operator/) });
    expect(statSync(join(workspace, 'projects/billing/src/format.js')).isFile()).toBe(true);
  });
});

describe('test counts from runner output', () => {
  it('reads node:test, Vitest, Jest and Mocha summaries', () => {
    expect(parseTestCounts('# tests 3\n# pass 2\n# fail 1\n')).toEqual({ passed: 2, failed: 1 });
    expect(parseTestCounts(' Test Files  1 passed (1)\n      Tests  1 failed | 4 passed (5)\n')).toEqual({ passed: 4, failed: 1 });
    expect(parseTestCounts('Tests:       2 failed, 7 passed, 9 total\n')).toEqual({ passed: 7, failed: 2 });
    expect(parseTestCounts('  5 passing (20ms)\n')).toEqual({ passed: 5, failed: 0 });
    expect(parseTestCounts('lint clean\n')).toEqual({ passed: null, failed: null });
  });
});
