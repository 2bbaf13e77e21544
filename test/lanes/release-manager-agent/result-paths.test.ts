import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { releaseReadiness } from '../../../agents/release-manager-agent/release-readiness.js';
import { quietSnapshot, withSnapshot } from '../../support/control-plane-snapshot.js';

describe('release-readiness result paths', () => {
  let base: string;
  let workspaceRoot: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'release-paths-'));
    workspaceRoot = join(base, 'workspace');
    const app = join(workspaceRoot, 'app');
    mkdirSync(join(app, 'target', 'surefire-reports'), { recursive: true });
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', version: '1.0.0', scripts: { test: 'node --test' } }));
    writeFileSync(
      join(app, 'target', 'surefire-reports', 'TEST-app.xml'),
      `<testsuite name="app"><testcase classname="app.Orders" name="creates"><failure>expected 201 at ${join(app, 'test', 'orders.test.js')}:9</failure></testcase></testsuite>`,
    );
    writeFileSync(join(app, 'target', 'surefire-reports', 'TEST-broken.xml'), '<testsuite><testcase>');
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  it('names reports and failing cases without the server paths', async () => {
    const result = await releaseReadiness(withSnapshot(quietSnapshot(), { scope: 'app' }), { workspaceRoot, runId: null });
    if (!result.success) throw new Error(result.error);
    expect(result.project!.junit).toMatchObject({
      reports: ['app/target/surefire-reports/TEST-app.xml'],
      failing: [{ report: 'app/target/surefire-reports/TEST-app.xml', message: 'expected 201 at app/test/orders.test.js:9' }],
      unreadable: [{ report: 'app/target/surefire-reports/TEST-broken.xml' }],
    });
    expect(JSON.stringify(result)).not.toContain(base);
  });
});
