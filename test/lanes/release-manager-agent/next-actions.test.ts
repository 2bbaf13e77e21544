import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { releaseReadiness, type ReleaseReadinessSuccess } from '../../../agents/release-manager-agent/release-readiness.js';
import { hoursAgo, quietSnapshot, typeFigures, withSnapshot } from '../../support/control-plane-snapshot.js';

const PASSING_JUNIT = `<?xml version="1.0"?>
<testsuite name="unit" tests="2"><testcase classname="math" name="adds"/><testcase classname="math" name="subtracts"/></testsuite>`;
const FAILING_JUNIT = `<?xml version="1.0"?>
<testsuite name="api" tests="2" failures="1">
  <testcase classname="api.orders" name="creates an order"/>
  <testcase classname="api.orders" name="rejects a negative quantity"><failure message="expected 400, got 500">AssertionError</failure></testcase>
</testsuite>`;

/** A release candidate at `app/` whose every project gate passes; `files` overrides (null removes). */
const GOOD_PROJECT: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'orders-api', version: '1.4.0', scripts: { test: 'vitest run' } }),
  'package-lock.json': '{}',
  'CHANGELOG.md': '## 1.4.0\n- Orders can be cancelled.\n',
  'reports/junit.xml': PASSING_JUNIT,
};

const roots: string[] = [];
afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));

function workspace(files: Record<string, string | null>): string {
  const root = mkdtempSync(join(tmpdir(), 'release-advice-'));
  roots.push(root);
  for (const [rel, text] of Object.entries({ ...GOOD_PROJECT, ...files })) {
    if (text === null) continue;
    mkdirSync(join(root, 'app', rel, '..'), { recursive: true });
    writeFileSync(join(root, 'app', rel), text);
  }
  return root;
}

async function advise(files: Record<string, string | null>, snapshot = quietSnapshot()): Promise<ReleaseReadinessSuccess> {
  const result = await releaseReadiness(withSnapshot(snapshot, { scope: 'app' }), { workspaceRoot: workspace(files), runId: 'r' });
  if (!result.success) throw new Error(result.error);
  return result;
}

/**
 * What every piece of advice must be: about something this run found (the evidence of a gate that
 * did not pass, quoted or named by its failing case), never a failing test unless one failed, and
 * never "run release-readiness" (the lane that just ran).
 */
function expectSpecificAdvice(result: ReleaseReadinessSuccess): void {
  const open = result.gates.filter((g) => g.status !== 'pass');
  const failingCases = result.project?.junit.failing.map((c) => c.name) ?? [];
  const found = [...open.map((g) => g.evidence), ...failingCases];
  expect(result.recommendedNextActions).toHaveLength(Math.max(open.length, 1));
  for (const action of result.recommendedNextActions) {
    if (open.length > 0) expect(found.some((thing) => action.includes(thing)), `"${action}" names nothing found`).toBe(true);
    if (failingCases.length === 0) expect(action).not.toMatch(/fail(ing|ed) test/i);
    expect(action).not.toMatch(/release-readiness/i);
  }
}

describe('release-readiness advice against fixtures', () => {
  it('a missing JUnit report is advised as a missing report, not as failing tests', async () => {
    const result = await advise({ 'reports/junit.xml': null });
    expect(result.posture).toBe('hold');
    expect(result.recommendedNextActions).toEqual([
      'no JUnit report under app: have the test run write a JUnit report (for example junit.xml under app/test-results/) so the release carries test evidence.',
    ]);
    expectSpecificAdvice(result);
  });

  it('a failing JUnit case is named, with the report it is in', async () => {
    const result = await advise({ 'reports/junit.xml': FAILING_JUNIT });
    expect(result.recommendedNextActions).toEqual([
      'Fix the failing test cases (api.orders › rejects a negative quantity) in app/reports/junit.xml, then run the tests again.',
    ]);
    expectSpecificAdvice(result);
  });

  it('each gate that holds or blocks gets its own action, failing gates first, each quoting what it found', async () => {
    const snapshot = quietSnapshot({
      runs: { window: 8, byType: [typeFigures('qa-verification', 2, 6)], recent: [] },
      approvals: { pendingCount: 1, oldestRequestedAt: hoursAgo(1), items: [{ taskId: 'br-9', runId: 'br-9', type: 'build-refactor', requestedAt: hoursAgo(1) }] },
    });
    const result = await advise(
      {
        'package.json': JSON.stringify({ name: 'orders-api', version: '1.4.1', scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
        'package-lock.json': null,
      },
      snapshot,
    );
    expect(result.recommendedNextActions.map((a) => a.split(':')[0])).toEqual(['recent-failures', 'pending-approvals', 'changelog', 'test-script', 'lockfile']);
    expect(result.recommendedNextActions[0]).toContain('qa-verification: 6 of 8 finished runs failed');
    expect(result.recommendedNextActions[1]).toContain('build-refactor br-9');
    expect(result.recommendedNextActions[2]).toContain('app/CHANGELOG.md does not mention 1.4.1');
    expectSpecificAdvice(result);
  });

  it('a release with every gate passing is advised to go through the approval path, naming what passed', async () => {
    const result = await advise({});
    expect(result.posture).toBe('go');
    expect(result.recommendedNextActions).toEqual([
      'All 8 gates pass for orders-api 1.4.0: release through the approval path; this lane does not tag, publish or deploy.',
    ]);
    expectSpecificAdvice(result);
  });
});
