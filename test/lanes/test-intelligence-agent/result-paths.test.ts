import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testIntelligence } from '../../../agents/test-intelligence-agent/intelligence.js';

describe('test-intelligence result paths', () => {
  let base: string;
  let workspaceRoot: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'ti-paths-'));
    workspaceRoot = join(base, 'workspace');
    const reports = join(workspaceRoot, 'shop', 'build', 'test-results');
    mkdirSync(reports, { recursive: true });
    // Reports written by a run in this workspace quote the server's paths in their stack traces.
    writeFileSync(
      join(reports, 'junit.xml'),
      `<testsuite name="cart"><testcase name="totals" classname="Cart"><failure>AssertionError: 3 !== 4
    at ${join(workspaceRoot, 'shop', 'test', 'cart.test.js')}:6:3</failure></testcase></testsuite>`,
    );
    writeFileSync(
      join(reports, 'node.tap'),
      ['TAP version 13', 'not ok 1 - checkout', '  ---', `  error: 'ENOENT: no such file, open ${join(workspaceRoot, 'shop', 'fixtures', 'x.json')}'`, '  ...', '1..1'].join('\n'),
    );
    writeFileSync(join(reports, 'junit-broken.xml'), '<testsuite>');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('cites reports workspace-relative and rewrites the server paths inside their messages', async () => {
    const result: Record<string, any> = await testIntelligence({ scope: 'shop' }, { workspaceRoot, runId: null });
    expect(result).toMatchObject({ success: true, posture: 'blocked' });
    expect(result.reports.map((r: { path: string }) => r.path)).toEqual([
      'shop/build/test-results/junit-broken.xml',
      'shop/build/test-results/junit.xml',
      'shop/build/test-results/node.tap',
    ]);
    expect(result.failures.map((f: { message: string }) => f.message)).toEqual([
      'AssertionError: 3 !== 4\n    at shop/test/cart.test.js:6:3',
      'ENOENT: no such file, open shop/fixtures/x.json',
    ]);
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
