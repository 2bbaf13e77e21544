import { describe, expect, it } from 'vitest';
import { parseJunitXml, type JunitRead, type JunitReport } from '../../src/worker-sdk/junit-report.js';

function report(read: JunitRead): JunitReport {
  if (!read.ok) throw new Error(read.reason);
  return read.report;
}

/** jest-junit's shape: a testsuites root with the run's time, one failure, one skip. */
const JEST_JUNIT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="3" failures="1" time="2.5">
  <testsuite name="Cart" tests="3" failures="1" skipped="1" time="2.1">
    <testcase classname="Cart applies the discount" name="applies the discount" time="0.012">
      <failure message="expect(received).toBe(expected)">Error: expect(received).toBe(expected)
    at Object.toBe (cart.test.js:14:26)</failure>
    </testcase>
    <testcase classname="Cart totals" name="totals an empty cart" time="0.002"/>
    <testcase classname="Cart ships" name="ships abroad" time="0"><skipped/></testcase>
  </testsuite>
</testsuites>`;

describe('parseJunitXml', () => {
  it('totals the cases and names each failing one with its class and message', () => {
    const junit = report(parseJunitXml(JEST_JUNIT));
    expect(junit.totals).toEqual({ tests: 3, failures: 1, errors: 0, skipped: 1, seconds: 2.5 });
    expect(junit.failing).toEqual([
      {
        name: 'applies the discount',
        className: 'Cart applies the discount',
        suite: 'Cart',
        status: 'failed',
        message: 'expect(received).toBe(expected)',
        seconds: 0.012,
        rerunFlaky: false,
      },
    ]);
    expect(junit.suites).toBe(1);
  });

  it('reads a single testsuite root with an error, a rerun that flaked and a missing classname', () => {
    const junit = report(
      parseJunitXml(`<testsuite name="billing" time="1.5">
        <testcase name="issues" classname="Invoice" time="0.5"><flakyFailure message="timeout"/></testcase>
        <testcase name="connects" time="1"><error type="java.net.ConnectException">Connection refused
	at Ledger.connect(Ledger.java:41)</error></testcase>
      </testsuite>`),
    );
    expect(junit.totals).toEqual({ tests: 2, failures: 0, errors: 1, skipped: 0, seconds: 1.5 });
    expect(junit.cases[0]).toMatchObject({ status: 'passed', rerunFlaky: true, message: null });
    // No message attribute: the type names the error; no classname: null, the suite is given apart.
    expect(junit.failing).toEqual([expect.objectContaining({ name: 'connects', className: null, suite: 'billing', status: 'error', message: 'java.net.ConnectException' })]);
  });

  it('counts nested suites at every level and keeps numeric-looking names strings', () => {
    const junit = report(
      parseJunitXml(`<testsuites><testsuite name="api"><testcase name="200" classname="api.Ok"/>
        <testsuite name="api.routes"><testcase name="404" classname="api.NotFound"><failure>expected 404, got 500</failure></testcase></testsuite>
      </testsuite></testsuites>`),
    );
    expect(junit.cases.map((c) => [c.suite, c.name, c.status])).toEqual([
      ['api', '200', 'passed'],
      ['api.routes', '404', 'failed'],
    ]);
    expect(junit.failing[0]!.message).toBe('expected 404, got 500');
    expect(junit.suites).toBe(2);
    // No time anywhere: the cases' own (zero) times are summed.
    expect(junit.statedSeconds).toBeNull();
  });

  it('counts from the cases, not from stale suite attributes', () => {
    const junit = report(parseJunitXml('<testsuite name="s" tests="99" failures="7"><testcase name="only"/></testsuite>'));
    expect(junit.totals).toMatchObject({ tests: 1, failures: 0 });
  });

  it('shortens a long failure body to its first lines', () => {
    const body = Array.from({ length: 20 }, (_, i) => `line ${i}`).join('\n');
    const junit = report(parseJunitXml(`<testsuite><testcase name="t"><failure>${body}</failure></testcase></testsuite>`));
    expect(junit.failing[0]!.message).toBe('line 0\nline 1\nline 2\nline 3\nline 4');
  });

  it('answers malformed XML and XML of another kind as problems, never by throwing', () => {
    expect(parseJunitXml('<testsuites><testsuite name="x">')).toMatchObject({ ok: false, problem: 'malformed', reason: expect.stringMatching(/^not well-formed XML/) });
    expect(parseJunitXml('not xml at all < >')).toMatchObject({ ok: false, problem: 'malformed' });
    expect(parseJunitXml('')).toMatchObject({ ok: false });
    expect(parseJunitXml('<project><target name="build"/></project>')).toEqual({ ok: false, problem: 'not-junit', reason: 'no <testsuites> or <testsuite> root element' });
  });

  it('reads an empty testsuites root as a report without suites', () => {
    expect(report(parseJunitXml('<testsuites/>'))).toMatchObject({ cases: [], suites: 0, totals: { tests: 0 } });
  });

  it('refuses an entity expansion bomb instead of expanding it', () => {
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lollollollollollollollollollol">
      <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
      <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;"><!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">]>
      <testsuite><testcase name="t"><failure>&lol5;</failure></testcase></testsuite>`;
    const read = parseJunitXml(bomb);
    const message = read.ok ? (read.report.failing[0]?.message ?? '') : '';
    expect(message.length).toBeLessThan(1000);
  });
});
