import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { releaseReadiness } from '../../../agents/release-manager-agent/release-readiness.js';
import {
  hoursAgo,
  quietSnapshot,
  typeFigures,
  withSnapshot,
} from '../../support/control-plane-snapshot.js';

const PASSING_JUNIT = `<?xml version="1.0"?>
<testsuites><testsuite name="unit" tests="2"><testcase classname="math" name="adds"/><testcase classname="math" name="subtracts"/></testsuite></testsuites>`;
const FAILING_JUNIT = `<?xml version="1.0"?>
<testsuite name="api" tests="3" failures="1">
  <testcase classname="api.orders" name="creates an order"/>
  <testcase classname="api.orders" name="rejects a negative quantity"><failure message="expected 400, got 500">AssertionError: expected 400, got 500</failure></testcase>
  <testcase classname="api.orders" name="lists orders"><skipped/></testcase>
</testsuite>`;

/** A workspace with a release candidate at `app/`; `files` adds or overrides files in it. */
function workspace(files: Record<string, string> = {}): string {
  const root = mkdtempSync(join(tmpdir(), 'release-ws-'));
  const all: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'orders-api', version: '1.4.0', scripts: { test: 'vitest run' } }),
    'package-lock.json': '{}',
    'CHANGELOG.md': '# Changelog\n\n## 1.4.0\n- Orders can be cancelled.\n\n## 1.3.0\n- First release.\n',
    'reports/junit.xml': PASSING_JUNIT,
    ...files,
  };
  for (const [rel, text] of Object.entries(all)) {
    mkdirSync(join(root, 'app', rel, '..'), { recursive: true });
    writeFileSync(join(root, 'app', rel), text);
  }
  return root;
}

async function run(snapshot: ReturnType<typeof quietSnapshot>, fields: Record<string, unknown>, root = workspace()) {
  const result = await releaseReadiness(withSnapshot(snapshot, fields), { workspaceRoot: root, runId: 'r' });
  if (!result.success) throw new Error(result.error);
  return result;
}

const statusOf = (gates: Array<{ gate: string; status: string }>) => Object.fromEntries(gates.map((g) => [g.gate, g.status]));

describe('release-readiness lane', () => {
  it('is a go when the control plane is quiet and every project gate passes', async () => {
    const result = await run(quietSnapshot(), { scope: 'app' });
    expect(result.posture).toBe('go');
    expect(statusOf(result.gates)).toEqual({
      'recent-failures': 'pass',
      'pending-approvals': 'pass',
      'open-incidents': 'pass',
      'package-version': 'pass',
      changelog: 'pass',
      'test-script': 'pass',
      lockfile: 'pass',
      'test-reports': 'pass',
    });
    expect(result.project).toMatchObject({ name: 'orders-api', version: '1.4.0', changelog: 'CHANGELOG.md', lockfile: 'package-lock.json' });
    expect(result.gates.find((g) => g.gate === 'test-reports')!.evidence).toBe('2 test cases, none failing, in app/reports/junit.xml');
  });

  it('blocks on a failing JUnit case and names it', async () => {
    const root = workspace({ 'test-results/junit-api.xml': FAILING_JUNIT });
    const result = await run(quietSnapshot(), { scope: 'app' }, root);
    expect(result.posture).toBe('block');
    const reports = result.gates.find((g) => g.gate === 'test-reports')!;
    expect(reports.status).toBe('fail');
    expect(reports.evidence).toContain('1 of 5 test cases failed');
    expect(reports.evidence).toContain('api.orders › rejects a negative quantity (expected 400, got 500)');
    expect(result.project!.junit).toMatchObject({ tests: 5, failures: 1, skipped: 1 });
  });

  it('holds when the changelog misses the version, the lockfile is absent or the test script is the npm init default', async () => {
    const root = workspace({
      'package.json': JSON.stringify({ name: 'orders-api', version: '1.4.1', scripts: { test: 'echo "Error: no test specified" && exit 1' } }),
      'CHANGELOG.md': '## 1.4.10\n- not this one\n',
    });
    const noLock = mkdtempSync(join(tmpdir(), 'release-ws-'));
    mkdirSync(join(noLock, 'svc'));
    writeFileSync(join(noLock, 'svc', 'package.json'), JSON.stringify({ name: 'svc', version: '2.0.0', scripts: { test: 'node --test' } }));
    writeFileSync(join(noLock, 'svc', 'CHANGELOG.md'), '## v2.0.0\n');
    writeFileSync(join(noLock, 'svc', 'junit.xml'), PASSING_JUNIT);

    const first = await run(quietSnapshot(), { scope: 'app' }, root);
    expect(first.posture).toBe('hold');
    expect(statusOf(first.gates)).toMatchObject({ changelog: 'warn', 'test-script': 'warn', lockfile: 'pass' });
    expect(first.gates.find((g) => g.gate === 'changelog')!.evidence).toBe('app/CHANGELOG.md does not mention 1.4.1');

    const second = await run(quietSnapshot(), { scope: 'svc' }, noLock);
    expect(second.posture).toBe('hold');
    expect(statusOf(second.gates)).toMatchObject({ changelog: 'pass', lockfile: 'warn', 'test-reports': 'pass' });
  });

  it('blocks without a package version and holds on a pending approval', async () => {
    const root = workspace({ 'package.json': JSON.stringify({ name: 'orders-api' }) });
    const pending = quietSnapshot({
      approvals: { pendingCount: 1, oldestRequestedAt: hoursAgo(1), items: [{ taskId: 'br-9', runId: 'br-9', type: 'build-refactor', requestedAt: hoursAgo(1) }] },
    });
    const result = await run(pending, { scope: 'app' }, root);
    expect(result.posture).toBe('block');
    expect(statusOf(result.gates)).toMatchObject({ 'package-version': 'fail', 'pending-approvals': 'warn' });
    expect(result.gates.find((g) => g.gate === 'pending-approvals')!.evidence).toContain('build-refactor br-9');

    const controlPlaneOnly = await run(pending, {});
    expect(controlPlaneOnly.posture).toBe('hold');
    expect(controlPlaneOnly.gates.map((g) => g.gate)).toEqual(['recent-failures', 'pending-approvals', 'open-incidents']);
    expect(controlPlaneOnly.project).toBeNull();
  });

  it('blocks on a lane failing most of its runs', async () => {
    const failing = quietSnapshot({ runs: { window: 8, byType: [typeFigures('qa-verification', 2, 6)], recent: [] } });
    const result = await run(failing, {});
    expect(result.posture).toBe('block');
    expect(result.gates[0]).toEqual({ gate: 'recent-failures', status: 'fail', evidence: 'qa-verification: 6 of 8 finished runs failed' });
  });

  it('refuses without a snapshot, for a scope outside the workspace and for a missing scope', async () => {
    const root = workspace();
    const ctx = { workspaceRoot: root, runId: 'r' };
    expect(await releaseReadiness({ scope: 'app' }, ctx)).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
    const escape = await releaseReadiness(withSnapshot(quietSnapshot(), { scope: '../elsewhere' }), ctx);
    expect(escape).toMatchObject({ success: false });
    expect((escape as { error: string }).error).toContain('escapes the workspace root');
    const missing = await releaseReadiness(withSnapshot(quietSnapshot(), { scope: 'nope' }), ctx);
    expect((missing as { error: string }).error).toContain('does not exist');
  });
});
