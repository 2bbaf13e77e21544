import { execSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { seriousViolations } from './axe.js';
import { TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const NO_BROWSER = !existsSync(CHROMIUM);

/** Screenshots land here (git-ignored): look at them after a change to the console. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots');

const WIDTHS = [1400, 390] as const;
const SCHEMES = ['light', 'dark'] as const;

/** Pages this suite owns: besides the checks every page gets, they must not scroll sideways at 390 px. */
const OWN_PAGES = new Set(['overview', 'tasks', 'queue', 'schedules', 'approvals', 'incidents', 'incident', 'agents', 'knowledge', 'business', 'system-health']);

/** Write controls: none may be shown to a viewer, on any page. */
const WRITE_CONTROLS = /^(Approve|Reject|Acknowledge|Set owner|Start remediation|New schedule|Create schedule|Save schedule|Edit|Pause|Resume|Delete|Confirm delete|Pause scheduler|Resume scheduler|Trigger|Search|Cancel run…|Confirm cancel|Cancel|Rerun.*|Run again.*)$/;

async function ingestAlert(baseUrl: string, fingerprint: string, summary: string, severity: string, status: 'firing' | 'resolved' = 'firing'): Promise<void> {
  const body = JSON.stringify({
    version: '4',
    status,
    receiver: 'orchestrator',
    alerts: [{ status, fingerprint, labels: { alertname: 'QueueBacklog', severity }, annotations: { summary, description: 'backlog above 500 for 10 min' }, startsAt: new Date().toISOString() }],
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const res = await fetch(`${baseUrl}/webhook/alerts`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body), 'x-orchestrator-timestamp': timestamp },
    body,
  });
  expect(res.status).toBe(200);
}

/** A page that records console errors, page errors and CSP violations. */
async function watchedPage(context: BrowserContext): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  await page.exposeFunction('__reportCsp', (text: string) => problems.push(`CSP: ${text}`));
  // Browser-side code is passed as text: it runs in the page, not under this file's Node types.
  await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => window.__reportCsp(e.violatedDirective + ' ' + e.blockedURI));`);
  return { page, problems };
}

async function signIn(page: Page, baseUrl: string, key: string, shownAs: string): Promise<void> {
  await page.goto(`${baseUrl}/operator`);
  await page.getByLabel('Bearer token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Signed in as').getByText(shownAs).waitFor();
}

/** Waits until nothing on the page is still loading (every section shows data, empty or error). */
async function settled(page: Page): Promise<void> {
  await page.locator('h1').first().waitFor();
  // A function, not text: polling text would need 'unsafe-eval', which the console's CSP refuses.
  await page.waitForFunction(() => (globalThis as unknown as BrowserGlobals).document.querySelectorAll('[aria-busy="true"], .loading').length === 0, undefined, {
    timeout: 15_000,
  });
}

/** The little of the page's globals the waits read (this file is type-checked without DOM types). */
interface BrowserGlobals {
  document: { querySelectorAll(selector: string): { length: number } };
}

describe.skipIf(NO_BROWSER)(`console pages in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;
  let base: string;
  let incidentId: string;
  const summaryRun = 'pages-summary-1';

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    mkdirSync(SHOTS, { recursive: true });
    // The operator may not approve runs it asked for: the approvals page must say so.
    running = await startRuntimeService({ approvalPolicy: { 'summarize-content': { allowSelfApproval: false, expiresAfterMinutes: 90 } } });
    base = running.service.url;
    const { api } = running;
    expect((await api.trigger('summarize-content', { content: 'Quarterly revenue grew 12 percent while churn fell.', idempotencyKey: summaryRun })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Release notes held for review.', idempotencyKey: 'pages-held-1', requiresApproval: true })).status).toBe(202);
    expect((await waitForTerminal(api, summaryRun)).status).toBe('success');
    await ingestAlert(base, 'pages-backlog-1', 'Queue backlog on worker pool', 'critical');
    incidentId = await waitFor(async () => {
      const list = await api.get('/api/incidents?limit=50');
      return list.body.incidents.find((i: any) => i.title === 'Queue backlog on worker pool')?.incidentId;
    });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await running?.service.kill();
    }
  });

  const pages = () => [
    { name: 'overview', path: '/operator/' },
    { name: 'tasks', path: '/operator/tasks' },
    { name: 'runs', path: '/operator/runs' },
    { name: 'run', path: `/operator/runs/${encodeURIComponent(summaryRun)}` },
    { name: 'queue', path: '/operator/queue' },
    { name: 'schedules', path: '/operator/schedules' },
    { name: 'approvals', path: '/operator/approvals' },
    { name: 'incidents', path: '/operator/incidents' },
    { name: 'incident', path: `/operator/incidents/${incidentId}` },
    { name: 'agents', path: '/operator/agents' },
    { name: 'knowledge', path: '/operator/knowledge' },
    { name: 'business', path: '/operator/business' },
    { name: 'system-health', path: '/operator/system-health' },
  ];

  it('every page at 1,400 and 390 px, light and dark: no serious accessibility violation, no console error or CSP violation', async () => {
    const failures: string[] = [];
    for (const scheme of SCHEMES) {
      for (const width of WIDTHS) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme: scheme });
        const { page, problems } = await watchedPage(context);
        try {
          await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
          for (const target of [...pages(), { name: 'public-proof', path: '/operator/public-proof' }]) {
            await page.goto(`${base}${target.path}`);
            await settled(page);
            // Graphs and charts draw after their libraries load.
            if (target.name === 'agents') await page.locator('.drawing-node').first().waitFor();
            if (target.name === 'overview') await page.locator('.chart canvas').first().waitFor();
            const where = `${target.name} @${width}px ${scheme}`;
            for (const v of await seriousViolations(page)) failures.push(`${where}: ${v}`);
            if (width === 390 && OWN_PAGES.has(target.name)) {
              const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
              if (overflow > 1) failures.push(`${where}: the page scrolls sideways by ${overflow}px`);
            }
            await page.screenshot({ path: join(SHOTS, `${target.name}-${width}-${scheme}.png`), fullPage: true });
            for (const p of problems.splice(0)) failures.push(`${where}: ${p}`);
          }
        } finally {
          await context.close();
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('an operator creates a schedule with the cron checked as typed, and its first run appears in the runs list', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, problems } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules', exact: true }).click();
      await page.getByRole('button', { name: 'New schedule' }).click();
      const form = page.getByRole('form', { name: 'New schedule' });
      await form.getByLabel('Schedule id (optional)').fill('pages-every-10s');
      const cron = form.getByLabel('Cron expression');
      await cron.fill('every day');
      await form.getByText('Cron has 2 fields').waitFor();
      expect(await form.getByRole('button', { name: 'Create schedule' }).isDisabled()).toBe(true);
      await cron.fill('0 2 * * *');
      await form.getByText('At 02:00 (UTC)').waitFor();
      await cron.fill('*/10 * * * * *');
      await form.getByText('Every 10 seconds (UTC)').waitFor();
      await form.getByLabel('Task type').selectOption('summarize-content');
      await form.getByLabel('Payload (JSON object)').fill(JSON.stringify({ content: 'Scheduled digest of the day.' }));
      await form.getByRole('button', { name: 'Create schedule' }).click();
      await page.getByRole('status').filter({ hasText: 'Created schedule pages-every-10s.' }).waitFor();
      const row = page.getByRole('row').filter({ hasText: 'pages-every-10s' });
      await row.getByText('Every 10 seconds (UTC)').waitFor();
      await row.getByRole('list', { name: 'Next fire times of pages-every-10s' }).getByRole('listitem').first().waitFor();

      // The first firing is admitted as a run named after the schedule and shows up in the runs list.
      const runId = await waitFor(async () => {
        const list = await running.api.get('/api/tasks/runs?limit=50');
        return (list.body.items as any[]).find((r: any) => String(r.runId).startsWith('schedule:pages-every-10s:'))?.runId as string | undefined;
      }, 30_000, 'the first scheduled run');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Runs', exact: true }).click();
      await page.getByRole('link', { name: runId }).first().waitFor({ timeout: 20_000 });

      // Pause stops it; delete removes it.
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Schedules', exact: true }).click();
      await row.getByRole('button', { name: 'Pause' }).click();
      await row.getByText('paused').waitFor();
      expect((await running.api.get('/api/schedules/pages-every-10s')).body.enabled).toBe(false);
      await row.getByRole('button', { name: 'Resume' }).click();
      await row.getByText('enabled').waitFor();
      await row.getByRole('button', { name: 'Edit' }).click();
      const edit = page.getByRole('form', { name: 'Edit schedule pages-every-10s' });
      await edit.getByLabel('Cron expression').fill('0 2 * * *');
      await edit.getByRole('button', { name: 'Save schedule' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved schedule pages-every-10s.' }).waitFor();
      expect((await running.api.get('/api/schedules/pages-every-10s')).body.cron).toBe('0 2 * * *');
      await row.getByRole('button', { name: 'Delete' }).click();
      await row.getByRole('button', { name: 'Confirm delete' }).click();
      await page.getByRole('status').filter({ hasText: 'Deleted schedule pages-every-10s.' }).waitFor();
      expect((await running.api.get('/api/schedules/pages-every-10s')).status).toBe(404);
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('an operator acknowledges, takes and remediates an incident raised by a signed alert; the timeline shows each step', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const { page, problems } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents', exact: true }).click();
      const row = page.getByRole('row').filter({ hasText: 'Queue backlog on worker pool' });
      await row.getByText('critical').waitFor();
      await row.getByText(/left|overdue/).waitFor();
      await row.getByRole('link', { name: 'Queue backlog on worker pool' }).click();
      await page.getByRole('heading', { name: 'Queue backlog on worker pool' }).waitFor();
      await page.getByLabel('Acknowledgement note').fill('looking at the pool');
      await page.getByRole('button', { name: 'Acknowledge' }).click();
      await page.getByLabel('Acknowledgement').getByText(/acknowledged by ops/).waitFor();
      await page.locator('table', { has: page.locator('caption', { hasText: 'Acknowledgements' }) }).getByText('looking at the pool').waitFor();
      await page.getByRole('textbox', { name: 'Owner', exact: true }).fill('pool-team');
      await page.getByRole('button', { name: 'Set owner' }).click();
      await page.getByLabel('Current owner').getByText('owner pool-team').waitFor();
      await page.getByLabel('Remediation task', { exact: true }).selectOption('system-monitor');
      await page.getByRole('button', { name: 'Start remediation' }).click();
      const started = page.getByRole('status').filter({ hasText: /HTTP 202 (queued|awaiting-approval): system-monitor run/ });
      await started.waitFor();
      const remediationRunId = (await started.getByRole('link').textContent()) ?? '';
      const timeline = page.getByRole('list', { name: 'Incident history' });
      await timeline.getByText('acknowledged', { exact: true }).waitFor();
      await timeline.getByText(/owner system-monitor-agent -> pool-team/).waitFor();
      await page.locator('table', { has: page.locator('caption', { hasText: 'Remediation tasks' }) }).getByRole('link', { name: remediationRunId }).waitFor({ timeout: 15_000 });
      const stored = (await running.api.get(`/api/incidents/${incidentId}`)).body;
      expect(stored).toMatchObject({ acknowledged: true, acknowledgedBy: 'ops', owner: 'pool-team' });
      expect(stored.remediationTasks.map((t: any) => t.runId)).toContain(remediationRunId);

      // An incident that does not exist shows the service's error, not a blank page.
      await page.goto(`${base}/operator/incidents/00000000-0000-4000-8000-000000000000`);
      await page.getByRole('alert').getByText('HTTP 404 not_found').waitFor();
      // The failed read is logged by the browser as a failed resource load; nothing else may be.
      expect(problems.filter((p) => !p.includes('status of 404'))).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('offers no Acknowledge on a resolved incident, which the service would refuse with 409', async () => {
    await ingestAlert(base, 'pages-resolved-1', 'Replica lag on db2', 'warning');
    await ingestAlert(base, 'pages-resolved-1', 'Replica lag on db2', 'warning', 'resolved');
    const resolved = await waitFor(async () => {
      const list = await running.api.get('/api/incidents?status=resolved&limit=50');
      return list.body.incidents.find((i: any) => i.title === 'Replica lag on db2');
    });
    expect(resolved).toMatchObject({ status: 'resolved', acknowledged: false });
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, problems } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.goto(`${base}/operator/incidents/${resolved.incidentId}`);
      await page.getByRole('heading', { name: 'Replica lag on db2' }).waitFor();
      await settled(page);
      // The operator's other controls are there: the page rendered its actions, without Acknowledge.
      await page.getByRole('button', { name: 'Set owner' }).waitFor();
      expect(await page.getByRole('button', { name: 'Acknowledge' }).count()).toBe(0);
      expect(await page.getByLabel('Acknowledgement note').count()).toBe(0);
      const refused = await running.api.post(`/api/incidents/${resolved.incidentId}/acknowledge`, {});
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('conflict');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the approval page shows impact, requester, expiry and payload, and explains the self-approval the policy forbids; another admin approves', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals', exact: true }).click();
      const item = page.getByRole('listitem', { name: 'Approval pages-held-1' });
      await item.getByText('asked by').getByText('ops').waitFor();
      await item.getByText(/before expiry/).waitFor();
      await item.getByText('does not allow self-approval').waitFor();
      expect(await item.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      await item.getByRole('button', { name: 'Show payload' }).click();
      await item.getByText('Release notes held for review.').waitFor();
    } finally {
      await context.close();
    }
    const adminContext = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const admin = await watchedPage(adminContext);
    try {
      await signIn(admin.page, base, TEST_KEYS.admin, 'admin-user (admin)');
      await admin.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Approvals', exact: true }).click();
      const item = admin.page.getByRole('listitem', { name: 'Approval pages-held-1' });
      await item.getByLabel('Note').fill('checked by a second person');
      await item.getByRole('button', { name: 'Approve' }).click();
      await admin.page.getByRole('status').filter({ hasText: 'Decided pages-held-1: approved by admin-user' }).waitFor();
      expect((await running.api.run('pages-held-1')).body.approval).toMatchObject({ status: 'approved', decidedBy: 'admin-user' });
      expect(admin.problems).toEqual([]);
    } finally {
      await adminContext.close();
    }
  }, 60_000);

  it('an operator pauses and resumes the business scheduler', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const { page, problems } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.goto(`${base}/operator/business`);
      await page.getByRole('button', { name: 'Pause scheduler' }).click();
      await page.getByRole('button', { name: 'Resume scheduler' }).waitFor();
      expect((await running.api.get('/api/business/overview')).body.scheduler.mode).toBe('paused');
      await page.getByRole('button', { name: 'Resume scheduler' }).click();
      await page.getByRole('button', { name: 'Pause scheduler' }).waitFor();
      expect((await running.api.get('/api/business/overview')).body.scheduler.mode).toBe('enabled');
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('a viewer sees every page and no write control on any of them', async () => {
    const held = await running.api.trigger('summarize-content', { content: 'Held for the viewer.', idempotencyKey: 'pages-held-viewer', requiresApproval: true });
    expect(held.status).toBe(202);
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const { page, problems } = await watchedPage(context);
    try {
      await signIn(page, base, TEST_KEYS.viewer, 'viewer-bot (viewer)');
      const shown: string[] = [];
      for (const target of pages()) {
        await page.goto(`${base}${target.path}`);
        await settled(page);
        const names = await page.getByRole('button').evaluateAll((buttons) => buttons.map((b) => (b.getAttribute('aria-label') ?? b.textContent ?? '').trim()));
        for (const name of names) if (WRITE_CONTROLS.test(name)) shown.push(`${target.name}: ${name}`);
      }
      expect(shown).toEqual([]);
      await page.goto(`${base}/operator/approvals`);
      await page.getByText('need the operator role').waitFor();
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 90_000);

  it('the public proof page works signed out', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: 900 }, colorScheme: 'dark' });
    const { page, problems } = await watchedPage(context);
    try {
      await page.goto(`${base}/operator/public-proof`);
      await page.getByRole('heading', { name: 'Public proof' }).waitFor();
      await settled(page);
      expect(await page.getByLabel('Bearer token').count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await page.screenshot({ path: join(SHOTS, 'public-proof-signed-out-390-dark.png'), fullPage: true });
      expect(problems).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);
});
