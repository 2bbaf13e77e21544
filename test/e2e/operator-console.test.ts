import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { REPO_ROOT } from '../support/paths.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Delivers one firing Alertmanager alert, signed like the alert source would sign it. */
async function ingestAlert(baseUrl: string, fingerprint: string, summary: string): Promise<void> {
  const body = JSON.stringify({
    version: '4',
    status: 'firing',
    receiver: 'orchestrator',
    alerts: [
      {
        status: 'firing',
        fingerprint,
        labels: { alertname: 'DiskAlmostFull', severity: 'warning' },
        annotations: { summary, description: 'root volume above 92 % for 15 min' },
        startsAt: '2026-03-01T09:00:00Z',
      },
    ],
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${baseUrl}/webhook/alerts`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body),
      'x-orchestrator-timestamp': timestamp,
    },
    body,
  });
  expect(res.status).toBe(200);
}

async function signIn(page: Page, baseUrl: string, key: string, shownAs: string): Promise<void> {
  await page.goto(`${baseUrl}/operator`);
  await page.getByLabel('Bearer token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Signed in as').getByText(shownAs).waitFor();
}

async function triggerFromForm(page: Page, payload: string, idempotencyKey: string, holdForApproval: boolean): Promise<void> {
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
  await page.getByLabel('Task type').selectOption('summarize-content');
  await page.getByLabel('Payload (JSON object)').fill(payload);
  await page.getByLabel('Idempotency key (optional)').fill(idempotencyKey);
  if (holdForApproval) await page.getByLabel('Hold for approval').check();
  await page.getByRole('button', { name: 'Trigger' }).click();
  await page.getByRole('status').filter({ hasText: 'HTTP 202 queued' }).filter({ hasText: idempotencyKey }).waitFor();
}

const nav = (page: Page, name: string) => page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true }).click();

const NO_BROWSER = !existsSync(CHROMIUM);

// Skipped only when the machine has no chromium at /usr/bin/chromium (.ci/run installs it).
describe.skipIf(NO_BROWSER)(`operator console in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;

  beforeAll(async () => {
    // npm test builds it through scripts/ensure-setup.mjs; a lone run of this file may not have.
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    running = await startRuntimeService();
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await running?.service.kill();
    }
  });

  it('an operator signs in, triggers, approves, acknowledges and reads health; the token survives a reload', async () => {
    const base = running.service.url;
    const context = await browser.newContext();
    const page = await context.newPage();
    const consoleErrors: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).toContain(TEST_KEYS.operator);
      await page.reload();
      await page.getByLabel('Signed in as').getByText('ops (operator)').waitFor();
      await page.getByRole('heading', { name: 'Queue depth' }).waitFor();

      await nav(page, 'Runs');
      await page.getByRole('heading', { name: 'Runs', exact: true }).waitFor();
      await page.locator('caption', { hasText: /^Newest runs: \d+ shown of \d+$/ }).waitFor();

      // Trigger from the catalog-driven form; the run shows up in the list and finishes.
      await triggerFromForm(page, JSON.stringify({ content: 'Quarterly revenue grew 12 percent while churn fell.' }), 'e2e-summary-1', false);
      await nav(page, 'Runs');
      await page.getByRole('link', { name: 'e2e-summary-1' }).click();
      await page.getByRole('heading', { name: /^Run e2e-summary-1/ }).waitFor();
      expect((await waitForTerminal(running.api, 'e2e-summary-1')).status).toBe('success');
      await page.locator('.badge', { hasText: 'success' }).first().waitFor({ timeout: 15_000 });

      // The status filter narrows the list (and lives in the URL).
      await nav(page, 'Runs');
      await page.getByLabel('Status', { exact: true }).selectOption('failed');
      await page.waitForURL(/status=failed/);
      await page.locator('caption', { hasText: /^Newest runs: 0 shown of 0$/ }).waitFor();
      await page.getByLabel('Status', { exact: true }).selectOption('success');
      await page.getByRole('link', { name: 'e2e-summary-1' }).waitFor();

      // An invalid payload shows the service's field details.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
      await page.getByLabel('Task type').selectOption('summarize-content');
      await page.getByLabel('Payload (JSON object)').fill('{"content": ""}');
      await page.getByRole('button', { name: 'Trigger' }).click();
      await page.getByRole('alert').getByText('HTTP 400 invalid_request', { exact: false }).waitFor();
      await page.getByRole('list', { name: 'Error details' }).getByText('/body/payload/content').waitFor();

      // A held run is approved from the approvals page.
      await triggerFromForm(page, JSON.stringify({ content: 'Release notes for review.' }), 'e2e-held-1', true);
      await nav(page, 'Approvals');
      const item = page.getByRole('listitem', { name: 'Approval e2e-held-1' });
      await item.getByLabel('Note').fill('looks right');
      await item.getByRole('button', { name: 'Approve' }).click();
      await page.getByRole('status').filter({ hasText: 'Decided e2e-held-1: approved by ops' }).waitFor();
      const held = await running.api.run('e2e-held-1');
      expect(held.body.approval).toMatchObject({ status: 'approved', decidedBy: 'ops', note: 'looks right' });

      // An ingested alert is acknowledged from its detail page.
      await ingestAlert(base, 'e2e-disk-1', 'Disk almost full on db1');
      await nav(page, 'Incidents');
      await page.getByRole('link', { name: 'Disk almost full on db1' }).click();
      await page.getByRole('heading', { name: 'Disk almost full on db1' }).waitFor();
      await page.getByLabel('Acknowledgement note').fill('on it');
      await page.getByRole('button', { name: 'Acknowledge' }).click();
      await page.getByLabel('Acknowledgement').getByText(/acknowledged by ops/).waitFor();
      const listed = await running.api.get('/api/incidents?limit=200');
      const incident = listed.body.incidents.find((i: any) => i.title === 'Disk almost full on db1');
      expect(incident).toMatchObject({ acknowledged: true, acknowledgedBy: 'ops' });
      await page.locator('table', { has: page.locator('caption', { hasText: 'Acknowledgements' }) }).getByText('on it').waitFor();
      await page.getByLabel('Remediation task', { exact: true }).selectOption('system-monitor');
      await page.getByRole('button', { name: 'Start remediation' }).click();
      const remediation = page.getByRole('status').filter({ hasText: /HTTP 202 (queued|awaiting-approval): system-monitor run/ });
      await remediation.waitFor();
      const remediationRunId = await remediation.getByRole('link').textContent();
      const history = await running.api.get(`/api/incidents/${incident.incidentId}/history`);
      expect(history.body.remediationTasks.map((t: any) => t.runId)).toContain(remediationRunId);

      await nav(page, 'System health');
      await page.getByRole('heading', { name: 'System health' }).waitFor();
      await page.getByRole('heading', { name: 'Truth layers' }).waitFor();
      await page.getByText('Status', { exact: false }).locator('.badge').first().waitFor();

      await page.getByRole('button', { name: 'Log out' }).click();
      await page.getByLabel('Bearer token').waitFor();
      expect(await page.evaluate<string[]>('Object.values(sessionStorage)')).not.toContain(TEST_KEYS.operator);
      expect(consoleErrors.filter((e) => e.includes(TEST_KEYS.operator))).toEqual([]);
      // Everything the console loads is allowed by its own self-only Content-Security-Policy.
      expect(consoleErrors.filter((e) => /Content Security Policy/i.test(e))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 120_000);

  it('the public proof page works signed out and calls only the public proof routes, without a token', async () => {
    const base = running.service.url;
    const context = await browser.newContext();
    const page = await context.newPage();
    const apiCalls: { path: string; authorization: string | undefined }[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname.startsWith('/api/')) apiCalls.push({ path: url.pathname, authorization: request.headers().authorization });
    });
    try {
      await page.goto(`${base}/operator/public-proof`);
      await page.getByRole('heading', { name: 'Public proof' }).waitFor();
      await page.getByRole('region', { name: 'Control lanes' }).getByRole('table').waitFor();
      await page.locator('caption', { hasText: 'Latest milestones' }).waitFor();
      await page.getByRole('region', { name: 'Overview', exact: true }).getByText('Last started at').waitFor();
      expect(apiCalls.length).toBeGreaterThanOrEqual(6);
      for (const call of apiCalls) {
        expect(call.path).toMatch(/^\/api\/(command-center|milestones)\//);
        expect(call.authorization).toBeUndefined();
      }
      await expect(page.getByLabel('Bearer token').count()).resolves.toBe(0);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a viewer sees the console but no write actions', async () => {
    const base = running.service.url;
    const held = await running.api.trigger('summarize-content', { content: 'Held for the viewer check.', idempotencyKey: 'e2e-held-viewer', requiresApproval: true });
    expect(held.status).toBe(202);
    await waitFor(async () => {
      const pending = await running.api.get('/api/approvals/pending', TEST_KEYS.operator);
      return pending.body.pending.some((p: any) => p.runId === 'e2e-held-viewer') ? true : undefined;
    });
    const context = await browser.newContext();
    const page = await context.newPage();
    try {
      await signIn(page, base, TEST_KEYS.viewer, 'viewer-bot (viewer)');
      await nav(page, 'Approvals');
      await page.getByText('need the operator role').waitFor();
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      expect(await page.getByRole('button', { name: 'Reject' }).count()).toBe(0);

      await nav(page, 'Tasks');
      await page.getByText('Triggering needs the operator role').waitFor();
      expect(await page.getByRole('button', { name: 'Trigger' }).count()).toBe(0);
      await page.locator('caption', { hasText: 'task types' }).waitFor();
    } finally {
      await context.close();
    }
  }, 60_000);
});
