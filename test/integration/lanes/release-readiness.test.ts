import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';

const AGENTS = join(import.meta.dirname, '..', '..', '..', 'agents');

describe('release-readiness lane through the service', () => {
  let running: RuntimeService | undefined;

  beforeAll(async () => {
    const base = tempDir();
    const project = join(base, 'workspace', 'shop');
    mkdirSync(join(project, 'reports'), { recursive: true });
    writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'shop', version: '3.1.0', scripts: { test: 'node --test' } }));
    writeFileSync(join(project, 'package-lock.json'), '{}');
    writeFileSync(join(project, 'CHANGELOG.md'), '# Changelog\n\n## 3.1.0\n- Checkout keeps the basket.\n');
    writeFileSync(
      join(project, 'reports', 'junit.xml'),
      '<testsuite name="checkout" tests="2" failures="1"><testcase classname="checkout" name="keeps the basket"/>' +
        '<testcase classname="checkout" name="applies the voucher"><failure message="voucher ignored"/></testcase></testsuite>',
    );
    running = await startRuntimeService({ agentsDir: AGENTS }, base);
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('blocks a release whose test report has a failing case, naming it', async () => {
    const { api } = running!;
    const res = await api.trigger('release-readiness', { scope: 'shop' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId);

    expect(run.status).toBe('success');
    expect(run.result.posture).toBe('block');
    const gates = Object.fromEntries(run.result.gates.map((g: { gate: string; status: string }) => [g.gate, g.status]));
    expect(gates).toMatchObject({ 'package-version': 'pass', changelog: 'pass', lockfile: 'pass', 'test-script': 'pass', 'test-reports': 'fail' });
    const reports = run.result.gates.find((g: { gate: string }) => g.gate === 'test-reports');
    expect(reports.evidence).toContain('checkout › applies the voucher (voucher ignored)');
    expect(run.result.project).toMatchObject({ name: 'shop', version: '3.1.0' });
  });
});
