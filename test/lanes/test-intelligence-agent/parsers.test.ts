import { describe, expect, it } from 'vitest';
import { parseJsonReport } from '../../../agents/test-intelligence-agent/parse-json-report.js';
import { parseJunit } from '../../../agents/test-intelligence-agent/parse-junit.js';
import { parseTapReport } from '../../../agents/test-intelligence-agent/parse-tap-report.js';
import { totalsOf } from '../../../agents/test-intelligence-agent/test-case.js';

/** As jest-junit writes it. */
const JEST_JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="4" failures="1" errors="0" time="3.214">
  <testsuite name="Cart" errors="0" failures="1" skipped="1" timestamp="2024-05-02T10:14:03" time="1.902" tests="3">
    <testcase classname="Cart applies the discount code" name="Cart applies the discount code" time="0.012">
      <failure message="expect(received).toBe(expected)">Error: expect(received).toBe(expected) // Object.is equality

Expected: 90
Received: 100
    at Object.toBe (/builds/shop/src/cart/cart.test.js:14:26)</failure>
    </testcase>
    <testcase classname="Cart totals an empty cart" name="Cart totals an empty cart" time="0.002"/>
    <testcase classname="Cart ships abroad" name="Cart ships abroad" time="0">
      <skipped/>
    </testcase>
  </testsuite>
  <testsuite name="Currency" errors="0" failures="0" skipped="0" time="1.312" tests="1">
    <testcase classname="Currency formats euros" name="Currency formats euros" time="0.004"/>
  </testsuite>
</testsuites>`;

/** Maven surefire with rerunFailingTestsCount: a failed-then-passed test and an error. */
const SUREFIRE = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" name="com.acme.billing.InvoiceServiceTest" time="2.51" tests="3" errors="1" skipped="0" failures="0">
  <properties><property name="java.version" value="17.0.9"/></properties>
  <testcase name="issuesInvoice" classname="com.acme.billing.InvoiceServiceTest" time="0.84">
    <flakyFailure message="expected:&lt;PAID&gt; but was:&lt;PENDING&gt;" type="org.opentest4j.AssertionFailedError">
      <stackTrace>org.opentest4j.AssertionFailedError: expected:&lt;PAID&gt; but was:&lt;PENDING&gt;</stackTrace>
    </flakyFailure>
  </testcase>
  <testcase name="voidsInvoice" classname="com.acme.billing.InvoiceServiceTest" time="0.31"/>
  <testcase name="connectsToLedger" classname="com.acme.billing.InvoiceServiceTest" time="1.2">
    <error message="Connection refused: localhost/127.0.0.1:5432" type="java.net.ConnectException">java.net.ConnectException: Connection refused
	at com.acme.billing.Ledger.connect(Ledger.java:41)</error>
  </testcase>
</testsuite>`;

describe('JUnit XML', () => {
  it('reads jest-junit: counts from the cases, the failing case with class and message, the run time', () => {
    const report = parseJunit(JEST_JUNIT);
    expect(totalsOf(report.cases, report.time)).toEqual({ tests: 4, failures: 1, errors: 0, skipped: 1, time: 3.214 });
    expect(report.cases.find((c) => c.status === 'failed')).toMatchObject({
      name: 'Cart applies the discount code',
      classname: 'Cart applies the discount code',
      message: 'expect(received).toBe(expected)',
    });
  });

  it('reads a surefire testsuite root: an error with its message and a rerun that flaked', () => {
    const report = parseJunit(SUREFIRE);
    expect(totalsOf(report.cases, report.time)).toEqual({ tests: 3, failures: 0, errors: 1, skipped: 0, time: 2.51 });
    expect(report.cases[0]).toMatchObject({ name: 'issuesInvoice', status: 'passed', rerunFlaky: true });
    expect(report.cases[2]).toMatchObject({
      name: 'connectsToLedger',
      classname: 'com.acme.billing.InvoiceServiceTest',
      status: 'error',
      message: 'Connection refused: localhost/127.0.0.1:5432',
    });
  });

  it('reads nested suites and keeps a numeric-looking name a string', () => {
    const xml = `<testsuites><testsuite name="api"><testsuite name="api.routes" time="0.5">
      <testcase name="404" classname="api.routes.NotFound" time="0.1"><failure>AssertionError: expected 404, got 500</failure></testcase>
    </testsuite></testsuite></testsuites>`;
    const report = parseJunit(xml);
    expect(report.cases).toEqual([
      { name: '404', classname: 'api.routes.NotFound', status: 'failed', message: 'AssertionError: expected 404, got 500', time: 0.1, rerunFlaky: false },
    ]);
  });

  it('rejects XML that is not well formed or not JUnit', () => {
    expect(() => parseJunit('<testsuites><testsuite>')).toThrow(/not well-formed XML/);
    expect(() => parseJunit('<project><target name="build"/></project>')).toThrow(/no <testsuites> or <testsuite>/);
  });
});

describe('TAP', () => {
  it('reads node:test TAP: suites are not tests, nested names carry their suite, skip and todo are skipped', () => {
    const tap = [
      'TAP version 13',
      '# Subtest: division',
      '    # Subtest: divides evenly',
      '    ok 1 - divides evenly',
      '      ---',
      '      duration_ms: 0.45',
      '      ...',
      '    # Subtest: rounds down',
      '    not ok 2 - rounds down',
      '      ---',
      '      duration_ms: 2.5',
      "      location: '/w/app/test/math.test.js:6:3'",
      "      failureType: 'testCodeFailure'",
      '      error: |-',
      '        Expected values to be strictly equal:',
      '        ',
      '        3 !== 4',
      '      ...',
      '    1..2',
      'not ok 1 - division',
      '  ---',
      "  error: '1 subtest failed'",
      '  ...',
      '# Subtest: later',
      'ok 2 - later # SKIP not yet',
      'not ok 3 - planned # TODO',
      '1..3',
      '# duration_ms 120.5',
    ].join('\n');
    const report = parseTapReport(tap);
    expect(report.cases.map((c) => [c.classname, c.name, c.status])).toEqual([
      ['division', 'divides evenly', 'passed'],
      ['division', 'rounds down', 'failed'],
      ['', 'later', 'skipped'],
      ['', 'planned', 'skipped'],
    ]);
    expect(report.cases[1]!.message).toContain('3 !== 4');
    expect(report.time).toBe(0.1205);
  });

  it('refuses a file without TAP result lines', () => {
    expect(() => parseTapReport('just a log\n')).toThrow(/no TAP test lines/);
  });
});

describe('Jest / Vitest JSON', () => {
  it('reads assertionResults with ancestors as class, ms as seconds, and a file that failed to run', () => {
    const report = parseJsonReport({
      numFailedTests: 1,
      numPassedTests: 1,
      numTotalTests: 3,
      success: false,
      testResults: [
        {
          name: '/builds/shop/src/cart/cart.test.js',
          status: 'failed',
          message: '',
          assertionResults: [
            { ancestorTitles: ['Cart'], title: 'applies the discount code', fullName: 'Cart applies the discount code', status: 'failed', duration: 12, failureMessages: ['Error: expect(received).toBe(expected)\n\nExpected: 90\nReceived: 100'] },
            { ancestorTitles: ['Cart'], title: 'totals an empty cart', status: 'passed', duration: 3, failureMessages: [] },
            { ancestorTitles: [], title: 'ships abroad', status: 'pending', failureMessages: [] },
          ],
        },
        { name: '/builds/shop/src/db.test.js', status: 'failed', message: 'Cannot find module "pg" from "src/db.test.js"', assertionResults: [] },
      ],
    });
    expect(report.cases.map((c) => [c.classname, c.name, c.status])).toEqual([
      ['Cart', 'applies the discount code', 'failed'],
      ['Cart', 'totals an empty cart', 'passed'],
      ['cart.test.js', 'ships abroad', 'skipped'],
      ['db.test.js', 'db.test.js (failed to run)', 'error'],
    ]);
    expect(report.cases[0]!.message).toContain('Expected: 90');
    expect(report.cases[3]!.message).toContain('Cannot find module "pg"');
    expect(totalsOf(report.cases, report.time)).toEqual({ tests: 4, failures: 1, errors: 1, skipped: 1, time: 0.015 });
  });
});
