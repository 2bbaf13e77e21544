import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testIntelligence } from '../../../agents/test-intelligence-agent/intelligence.js';
import type { LanePayload } from '../../../src/worker-sdk/lane-definition.js';

function junit(cases: Array<{ name: string; classname: string; failure?: string; skipped?: boolean }>, time = '1.5'): string {
  const body = cases
    .map((c) =>
      c.failure
        ? `    <testcase name="${c.name}" classname="${c.classname}" time="0.1"><failure message="${c.failure}" type="AssertionError">${c.failure}\n    at stack</failure></testcase>`
        : c.skipped
          ? `    <testcase name="${c.name}" classname="${c.classname}" time="0"><skipped/></testcase>`
          : `    <testcase name="${c.name}" classname="${c.classname}" time="0.1"/>`,
    )
    .join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites tests="${cases.length}" time="${time}">\n  <testsuite name="suite" tests="${cases.length}">\n${body}\n  </testsuite>\n</testsuites>\n`;
}

describe('test-intelligence lane', () => {
  let workspaceRoot: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(workspaceRoot, path)), { recursive: true });
    writeFileSync(join(workspaceRoot, path), text);
  };
  const lane = async (payload: LanePayload<'test-intelligence'>): Promise<Record<string, any>> => testIntelligence(payload, { workspaceRoot, runId: 'unit' });

  beforeAll(() => {
    workspaceRoot = mkdtempSync(join(tmpdir(), 'ti-lane-'));
    // Two CI runs of the same project: checkout flips, refund fails in both.
    write('shop/reports/run-1/junit.xml', junit([
      { name: 'charges the card', classname: 'checkout.PaymentTest' },
      { name: 'retries a declined card', classname: 'checkout.PaymentTest', failure: 'timeout after 5000 ms' },
      { name: 'refunds in full', classname: 'checkout.RefundTest', failure: 'expected 100 to equal 0' },
    ]));
    write('shop/reports/run-2/junit-results.xml', junit([
      { name: 'charges the card', classname: 'checkout.PaymentTest' },
      { name: 'retries a declined card', classname: 'checkout.PaymentTest' },
      { name: 'refunds in full', classname: 'checkout.RefundTest', failure: 'expected 100 to equal 0' },
    ]));
    write('shop/node_modules/dep/junit.xml', junit([{ name: 'vendored', classname: 'dep', failure: 'not ours' }]));
    write('shop/package.json', '{"name":"shop"}');
    // A project whose only trouble is a flaky test.
    write('api/out/TEST-health.xml', junit([{ name: 'pings', classname: 'HealthTest' }, { name: 'reads version', classname: 'HealthTest', failure: 'ECONNRESET' }]));
    write('api/out/junit-rerun.xml', junit([{ name: 'pings', classname: 'HealthTest' }, { name: 'reads version', classname: 'HealthTest' }]));
    // All green, one TAP and one Jest JSON report.
    write('web/results.tap', 'TAP version 13\nok 1 - renders header\nok 2 - renders footer\n1..2\n');
    write('web/jest-results.json', JSON.stringify({
      numFailedTests: 0,
      testResults: [{ name: '/ci/web/src/app.test.js', status: 'passed', assertionResults: [{ ancestorTitles: ['App'], title: 'mounts', status: 'passed', duration: 5, failureMessages: [] }] }],
    }));
    write('web/tsconfig.json', '{"compilerOptions":{}}');
    write('web/test-config.json', '{"retries":2}');
    // Mostly skipped.
    write('docs-site/junit.xml', junit([{ name: 'a', classname: 'Links' }, { name: 'b', classname: 'Links', skipped: true }, { name: 'c', classname: 'Links', skipped: true }]));
    write('empty/readme.md', '# nothing here');
    write('broken/junit.xml', '<testsuites><testsuite name="x">');
  });
  afterAll(() => rmSync(workspaceRoot, { recursive: true, force: true }));

  it('finds both runs, names the consistent failure and the test that flips, and blocks', async () => {
    const result = await lane({ scope: 'shop' });
    expect(result).toMatchObject({
      success: true,
      posture: 'blocked',
      totals: { tests: 6, failures: 3, errors: 0, skipped: 0, time: 3 },
      consistentFailures: 1,
      flaky: [
        {
          name: 'retries a declined card',
          classname: 'checkout.PaymentTest',
          passedIn: ['shop/reports/run-2/junit-results.xml'],
          failedIn: ['shop/reports/run-1/junit.xml'],
          message: 'timeout after 5000 ms',
          evidence: 'flips-across-reports',
        },
      ],
    });
    expect(result.reports.map((r: { path: string }) => r.path)).toEqual(['shop/reports/run-1/junit.xml', 'shop/reports/run-2/junit-results.xml']);
    expect(result.failures).toContainEqual({
      name: 'refunds in full',
      classname: 'checkout.RefundTest',
      kind: 'failure',
      message: 'expected 100 to equal 0',
      report: 'shop/reports/run-2/junit-results.xml',
    });
    expect(result.recommendedNextActions.join(' ')).toContain('refunds in full');
  });

  it('reads only the reports named, and watches when the only failure is flaky', async () => {
    const result = await lane({ scope: 'api', reports: ['api/out/TEST-health.xml', 'api/out/junit-rerun.xml'] });
    expect(result).toMatchObject({ success: true, posture: 'watching', consistentFailures: 0, flaky: [{ name: 'reads version' }] });
  });

  it('is ready when TAP and Jest JSON reports all pass, passing config JSON by', async () => {
    const result = await lane({ scope: 'web' });
    expect(result).toMatchObject({
      success: true,
      posture: 'ready',
      totals: { tests: 3, failures: 0, errors: 0, skipped: 0 },
      reports: [
        { path: 'web/jest-results.json', format: 'json' },
        { path: 'web/results.tap', format: 'tap' },
      ],
      specialistContract: { status: 'completed' },
    });
  });

  it('watches a green run where most tests were skipped', async () => {
    const result = await lane({ scope: 'docs-site' });
    expect(result).toMatchObject({ success: true, posture: 'watching' });
    expect(result.postureReason).toContain('67% of the tests were skipped');
  });

  it('fails with posture blocked when the scope has no report', async () => {
    const result = await lane({ scope: 'empty' });
    expect(result).toMatchObject({ success: false, posture: 'blocked', specialistContract: { status: 'refused' } });
    expect(result.error).toContain('no test report found');
  });

  it('fails when the only report cannot be parsed, naming it', async () => {
    const result = await lane({ scope: 'broken' });
    expect(result).toMatchObject({ success: false, posture: 'blocked', reports: [{ path: 'broken/junit.xml', error: expect.stringContaining('not well-formed') }] });
  });

  it('refuses a scope outside the workspace, a report outside the scope, and a missing report', async () => {
    expect(await lane({ scope: '../other' })).toMatchObject({ success: false, error: expect.stringContaining('escapes the workspace root') });
    expect(await lane({ scope: 'api', reports: ['shop/reports/run-1/junit.xml'] })).toMatchObject({
      success: false,
      error: expect.stringContaining('outside scope'),
    });
    expect(await lane({ scope: 'api', reports: ['api/out/junit-missing.xml'] })).toMatchObject({
      success: false,
      error: expect.stringContaining('does not exist'),
    });
  });
});
