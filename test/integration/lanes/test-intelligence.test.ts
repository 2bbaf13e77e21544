import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/config.js';
import { waitForTerminal } from '../../support/http.js';
import { startRuntimeService, type RuntimeService } from '../../support/runtime-service.js';
import type { ServiceProcess } from '../../support/service-process.js';

const AGENTS_DIR = join(import.meta.dirname, '..', '..', '..', 'agents');

/** Two nightly runs of the same suite, as jest-junit writes them: "syncs the ledger" flips. */
function nightly(ledgerFails: boolean): string {
  const ledger = ledgerFails
    ? '<testcase classname="Sync syncs the ledger" name="Sync syncs the ledger" time="5.002"><failure message="thrown: Exceeded timeout of 5000 ms for a test.">thrown: Exceeded timeout of 5000 ms for a test.\n    at Object.test (src/sync.test.js:21:3)</failure></testcase>'
    : '<testcase classname="Sync syncs the ledger" name="Sync syncs the ledger" time="0.412"/>';
  return `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="2" failures="${ledgerFails ? 1 : 0}" errors="0" time="6.1">
  <testsuite name="Sync" errors="0" failures="${ledgerFails ? 1 : 0}" skipped="0" time="5.9" tests="2">
    <testcase classname="Sync reads the cursor" name="Sync reads the cursor" time="0.021"/>
    ${ledger}
  </testsuite>
</testsuites>
`;
}

describe('test-intelligence lane through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];

  beforeAll(async () => {
    const base = tempDir();
    const reports = join(base, 'workspace', 'ledger-sync', 'reports');
    mkdirSync(join(reports, 'night-1'), { recursive: true });
    mkdirSync(join(reports, 'night-2'), { recursive: true });
    writeFileSync(join(reports, 'night-1', 'junit.xml'), nightly(true));
    writeFileSync(join(reports, 'night-2', 'junit.xml'), nightly(false));
    ({ service, api } = await startRuntimeService({ agentsDir: AGENTS_DIR }, base));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('reads both reports and reports the test that flips between them as flaky', async () => {
    const res = await api.trigger('test-intelligence', { scope: 'ledger-sync' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('success');
    expect(run.result).toMatchObject({
      success: true,
      posture: 'watching',
      totals: { tests: 4, failures: 1, errors: 0, skipped: 0 },
      reports: [
        { path: 'ledger-sync/reports/night-1/junit.xml', format: 'junit', totals: { tests: 2, failures: 1 } },
        { path: 'ledger-sync/reports/night-2/junit.xml', format: 'junit', totals: { tests: 2, failures: 0 } },
      ],
      failures: [
        {
          name: 'Sync syncs the ledger',
          classname: 'Sync syncs the ledger',
          message: 'thrown: Exceeded timeout of 5000 ms for a test.',
          report: 'ledger-sync/reports/night-1/junit.xml',
        },
      ],
      flaky: [
        {
          name: 'Sync syncs the ledger',
          passedIn: ['ledger-sync/reports/night-2/junit.xml'],
          failedIn: ['ledger-sync/reports/night-1/junit.xml'],
        },
      ],
      specialistContract: { role: 'test-intelligence-agent', status: 'completed' },
    });
  });

  it('fails the run when the scope holds no report', async () => {
    const res = await api.trigger('test-intelligence', { scope: 'ledger-sync/reports/missing' });
    const run = await waitForTerminal(api, res.body.runId, 30_000);
    expect(run.status).toBe('failed');
    expect(JSON.stringify(run)).toContain('does not exist in the workspace');
  });
});
