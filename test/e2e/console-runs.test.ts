import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { AGENTS_DIR, REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { BUBBLEWRAP } from '../support/sandbox.js';
import { screenshotsAt } from '../support/console-browser.js';

const CHROMIUM = '/usr/bin/chromium';
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const NO_BROWSER = !existsSync(CHROMIUM);
/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-runs');
const WIDTHS = [1400, 390] as const;

/** Two projects in the workspace: a node:test suite with one failing test, and one whose suite never ends. */
function writeProjects(workspace: string): void {
  const invoice = join(workspace, 'apps', 'invoice');
  mkdirSync(join(invoice, 'test'), { recursive: true });
  writeFileSync(join(invoice, 'package.json'), JSON.stringify({ name: 'invoice-app', private: true, scripts: { test: 'node --test test/' } }));
  writeFileSync(join(invoice, 'test', 'totals.test.mjs'), "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('adds tax to the subtotal', () => assert.equal(100 + 20, 120));\n");
  writeFileSync(
    join(invoice, 'test', 'rounding.test.mjs'),
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\ntest('rounds half cents up', () => assert.equal(Math.round(0.125 * 100) / 100, 0.12));\n",
  );
  const audited = join(workspace, 'apps', 'audited', 'src');
  mkdirSync(audited, { recursive: true });
  writeFileSync(join(audited, 'render.js'), "export function show(el, html) {\n  el.innerHTML = html;\n}\nexport const run = (code) => eval(code);\n");
  const slow = join(workspace, 'apps', 'slow');
  mkdirSync(slow, { recursive: true });
  writeFileSync(join(slow, 'package.json'), JSON.stringify({ name: 'slow-app', private: true, scripts: { test: "node -e \"console.error('suite started'); setInterval(() => {}, 1000)\"" } }));
}

async function signIn(page: Page, baseUrl: string, key: string, shownAs: string): Promise<void> {
  await page.goto(`${baseUrl}/operator`);
  await page.getByLabel('Bearer token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Signed in as').getByText(shownAs).waitFor();
}

/** Marks the document; a reload or full navigation drops the mark. */
const markDocument = (page: Page) => page.evaluate('window.__noReload = "kept"');
const documentKept = async (page: Page) => (await page.evaluate('window.__noReload')) === 'kept';

const screenshots = (page: Page, name: string) => screenshotsAt(page, SHOTS, name, WIDTHS);

const runPage = (page: Page, base: string, runId: string) => page.goto(`${base}/operator/runs/${encodeURIComponent(runId)}`);

describe.skipIf(NO_BROWSER)(`console run pages in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    const base = tempDir('console-runs-');
    writeProjects(join(base, 'workspace'));
    running = await startRuntimeService({ agentsDir: AGENTS_DIR, sandbox: { allowUnsandboxed: !BUBBLEWRAP }, cancelGraceMs: 500 }, base);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    page = await context.newPage();
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(msg.text());
    });
    page.on('pageerror', (err) => errors.push(String(err)));
    await signIn(page, running.service.url, TEST_KEYS.operator, 'ops (operator)');
  }, 120_000);

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await running?.service.kill();
    }
  });

  it('a task triggered from the form reaches success on its run page without a reload, and the runs list shows it live', async () => {
    const base = running.service.url;
    await page.goto(`${base}/operator/runs`);
    await page.getByText('Live: live').waitFor();
    await markDocument(page);

    // A run admitted elsewhere appears in the open list without a reload.
    const other = await running.api.trigger('summarize-content', { content: 'Live list check: the list shows runs as they arrive.', idempotencyKey: 'runs-live-1' });
    expect(other.status).toBe(202);
    await page.getByRole('link', { name: 'runs-live-1' }).waitFor({ timeout: 15_000 });
    await page.getByRole('row').filter({ hasText: 'runs-live-1' }).locator('.badge', { hasText: 'success' }).waitFor({ timeout: 15_000 });
    await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: 'success 1' }).waitFor();
    await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: 'running 0' }).waitFor();
    await page.getByRole('row').filter({ hasText: 'runs-live-1' }).getByRole('cell', { name: /^\d+(\.\d)? (ms|s)$/ }).waitFor();
    expect(await documentKept(page)).toBe(true);
    await screenshots(page, 'runs-list');

    // A creation range is filtered by the service: the list and each status count ask for it,
    // and a run admitted inside the range still joins the open list live.
    const rangedRead = (status: string | null) =>
      page.waitForRequest((req) => {
        const url = new URL(req.url());
        return url.pathname === '/api/tasks/runs' && url.searchParams.has('createdFrom') && url.searchParams.get('status') === status;
      });
    const listRead = rangedRead(null);
    const successCount = rangedRead('success');
    await page.locator('#runs-range').selectOption('15m');
    const createdFrom = Date.parse(new URL((await listRead).url()).searchParams.get('createdFrom')!);
    await successCount;
    expect(Date.now() - createdFrom).toBeGreaterThanOrEqual(15 * 60_000);
    expect(Date.now() - createdFrom).toBeLessThan(17 * 60_000);
    await page.getByRole('link', { name: 'runs-live-1' }).waitFor();
    await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: 'success 1' }).waitFor();
    expect((await running.api.trigger('summarize-content', { content: 'Ranged live check.', idempotencyKey: 'runs-live-2' })).status).toBe(202);
    await page.getByRole('link', { name: 'runs-live-2' }).waitFor({ timeout: 15_000 });
    await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: 'success 2' }).waitFor({ timeout: 15_000 });
    await page.getByText(/Newest runs: 2 shown of 2 \(last 15 minutes\)/).waitFor();
    expect(await documentKept(page)).toBe(true);

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Tasks' }).click();
    await page.getByLabel('Task type').selectOption('summarize-content');
    await page.getByLabel('Payload (JSON object)').fill(JSON.stringify({ content: 'Quarterly revenue grew 12 percent while churn fell. The team shipped two releases.' }));
    await page.getByLabel('Idempotency key (optional)').fill('runs-form-1');
    await page.getByRole('button', { name: 'Trigger' }).click();
    await page.getByRole('status').getByRole('link', { name: 'runs-form-1' }).click();
    await page.getByRole('heading', { name: /Run runs-form-1/ }).waitFor();
    await page.locator('.run-header .badge', { hasText: 'success' }).waitFor({ timeout: 20_000 });
    expect(await documentKept(page)).toBe(true);
    // The result reads as text (Markdown), and the events arrived on the live stream.
    await page.getByRole('article', { name: 'Generated text' }).locator('.markdown', { hasText: 'Quarterly revenue grew' }).waitFor();
    await page.getByRole('region', { name: 'Events' }).locator('tbody tr').nth(2).waitFor();
    await screenshots(page, 'run-summarize');
    expect((await running.api.run('runs-form-1')).body.status).toBe('success');
  }, 90_000);

  it('a qa-verification run shows its verdict, counts and failing test', async () => {
    const res = await running.api.trigger('qa-verification', { target: 'apps/invoice', suite: 'full', mode: 'execute', idempotencyKey: 'runs-qa-1' });
    expect(res.status).toBe(202);
    expect((await waitForTerminal(running.api, 'runs-qa-1', 60_000)).status).toBe('success');
    await runPage(page, running.service.url, 'runs-qa-1');
    const verdict = page.getByRole('region', { name: 'Test verdict' });
    await verdict.locator('.badge', { hasText: 'failed' }).waitFor();
    const counts = verdict.getByRole('list', { name: 'Test counts' });
    await counts.getByText('1 passed').waitFor();
    await counts.getByText('1 failed').waitFor();
    await counts.getByText('0 skipped').waitFor();
    await verdict.getByRole('list', { name: 'Failing tests' }).getByText('rounds half cents up').waitFor();
    await verdict.getByRole('list', { name: 'Failing tests' }).getByText('apps/invoice/test/rounding.test.mjs').waitFor();
    // The runner's own message for the failure (node:test's TAP `error:` diagnostic).
    await expect(verdict.getByRole('region', { name: 'Message of rounds half cents up' }).textContent()).resolves.toMatch(/0\.13|!==|equal/);
    // The summary comes first, and no part of the page prints dotted key paths.
    await expect(page.locator('.summary').textContent()).resolves.toContain('rounds half cents up');
    expect(await page.locator('main').textContent()).not.toMatch(/\w+\.\w+\[\d+\]/);
    await screenshots(page, 'run-qa-verification');
  }, 90_000);

  it('an operator cancels a running worker run after confirming, sees it cancelled, and reruns it with an edited payload', async () => {
    const res = await running.api.trigger('qa-verification', { target: 'apps/slow', mode: 'execute', timeoutMs: 300_000, idempotencyKey: 'runs-slow-1' });
    expect(res.status).toBe(202);
    await runPage(page, running.service.url, 'runs-slow-1');
    await page.locator('.run-header .badge', { hasText: 'running' }).waitFor({ timeout: 30_000 });
    await markDocument(page);
    // By keyboard alone: type the reason, Tab to the button, Enter.
    await page.getByLabel('Reason (optional)').focus();
    await page.keyboard.type('stuck suite');
    await page.keyboard.press('Tab');
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Cancel run…');
    await page.keyboard.press('Enter');
    // The first press only asks: the run keeps running until the operator confirms.
    const confirm = page.getByRole('group', { name: 'Confirm cancel' });
    await confirm.getByText('Cancel run runs-slow-1? Its work is stopped where it is').waitFor();
    await screenshots(page, 'run-cancel-confirm');
    expect((await running.api.run('runs-slow-1')).body).toMatchObject({ status: 'running', cancellation: null });
    await confirm.getByRole('button', { name: 'Keep the run' }).click();
    await expect(confirm.count()).resolves.toBe(0);
    expect((await running.api.run('runs-slow-1')).body.cancellation).toBeNull();
    await page.getByRole('button', { name: 'Cancel run…' }).click();
    expect(await page.evaluate('document.activeElement?.textContent')).toBe('Confirm cancel');
    await page.keyboard.press('Enter');
    await page.locator('.run-header .badge', { hasText: 'cancelled' }).waitFor({ timeout: 20_000 });
    await page.getByText('asked by ops: stuck suite').waitFor();
    expect(await documentKept(page)).toBe(true);
    expect((await running.api.run('runs-slow-1')).body).toMatchObject({ status: 'cancelled', cancellation: { requestedBy: 'ops', reason: 'stuck suite' } });
    await expect(page.getByRole('button', { name: /^Cancel run/ }).count()).resolves.toBe(0);
    await screenshots(page, 'run-cancelled');

    await page.getByRole('button', { name: 'Rerun…' }).click();
    const payload = page.getByLabel(/Payload for the rerun/);
    const original = JSON.parse(await payload.inputValue());
    expect(original).toMatchObject({ target: 'apps/slow', mode: 'execute' });
    await payload.fill(JSON.stringify({ ...original, target: 'apps/invoice', timeoutMs: 60_000 }));
    await page.getByRole('button', { name: 'Send rerun' }).click();
    const outcome = page.getByRole('status').filter({ hasText: 'Rerun queued' });
    await outcome.waitFor();
    const rerunId = (await outcome.getByRole('link').textContent()) ?? '';
    expect(rerunId).not.toBe('');
    const rerun = await waitForTerminal(running.api, rerunId, 60_000);
    expect(rerun).toMatchObject({ rerunOf: 'runs-slow-1', payload: { target: 'apps/invoice' } });
    await outcome.getByRole('link').click();
    await page.getByRole('list', { name: 'Related runs' }).getByRole('link', { name: 'runs-slow-1' }).waitFor();
    await page.getByRole('region', { name: 'Test verdict' }).waitFor();
  }, 120_000);

  it('a held run is approved from its run page and links to its replay', async () => {
    const res = await running.api.trigger('summarize-content', { content: 'Release notes held for review before they go out.', requiresApproval: true, idempotencyKey: 'runs-held-1' });
    expect(res.status).toBe(202);
    await runPage(page, running.service.url, 'runs-held-1');
    const decision = page.getByRole('form', { name: 'Approval decision' });
    await decision.waitFor();
    await screenshots(page, 'run-held');
    await decision.getByLabel('Note (optional)').fill('fine to publish');
    await decision.getByRole('button', { name: 'Approve' }).click();
    const replay = page.getByRole('list', { name: 'Related runs' }).getByRole('link', { name: /^approval-replay:/ });
    await replay.waitFor({ timeout: 15_000 });
    const held = (await running.api.run('runs-held-1')).body;
    expect(held.approval).toMatchObject({ status: 'approved', decidedBy: 'ops', note: 'fine to publish' });
    await expect(decision.count()).resolves.toBe(0);
    const replayId = (await replay.textContent()) ?? '';
    await replay.click();
    await page.getByRole('heading', { name: `Run ${replayId}` }).waitFor();
    await page.locator('.run-header .badge', { hasText: 'success' }).waitFor({ timeout: 20_000 });
    await page.getByRole('list', { name: 'Related runs' }).getByRole('link', { name: 'runs-held-1' }).waitFor();
  }, 60_000);

  it('a security audit reads as a sortable findings table, and a workflow draws its steps linking to their runs', async () => {
    const audit = await running.api.trigger('security-audit', { type: 'code', scope: 'apps/audited', idempotencyKey: 'runs-audit-1' });
    expect(audit.status).toBe(202);
    expect((await waitForTerminal(running.api, 'runs-audit-1', 30_000)).status).toBe('success');
    await runPage(page, running.service.url, 'runs-audit-1');
    const table = page.locator('table.findings');
    await table.waitFor();
    const rules = async () => table.locator('tbody tr td:nth-child(2)').allTextContents();
    // Severity first: the high eval-call before the medium innerHTML assignment.
    expect(await rules()).toEqual(['eval-call', 'inner-html-assignment']);
    await table.getByRole('button', { name: 'Severity' }).click();
    expect(await rules()).toEqual(['inner-html-assignment', 'eval-call']);
    await table.getByRole('cell', { name: 'apps/audited/src/render.js:4' }).waitFor();
    await screenshots(page, 'run-security-audit');

    const steps = [
      { type: 'summarize-content', payload: { content: 'First step text for the workflow graph check.' }, description: 'summarize first' },
      { type: 'summarize-content', payload: { content: 'Second step text for the workflow graph check.' }, description: 'summarize second' },
    ];
    expect((await running.api.trigger('integration-workflow', { steps, idempotencyKey: 'runs-wf-1' })).status).toBe(202);
    await runPage(page, running.service.url, 'runs-wf-1');
    await page.getByRole('heading', { name: 'Workflow steps' }).waitFor({ timeout: 20_000 });
    const graph = page.locator('.graph-box');
    await graph.getByRole('link', { name: '2. summarize-content' }).waitFor({ timeout: 20_000 });
    await graph.locator('.graph-node', { hasText: '2. summarize-content' }).locator('.badge', { hasText: 'success' }).waitFor({ timeout: 30_000 });
    await screenshots(page, 'run-workflow');
    // The drawn node links to its child run; the step list under the graph is the keyboard path to it.
    expect(await graph.getByRole('link', { name: '1. summarize-content' }).getAttribute('href')).toBe('/operator/runs/runs-wf-1%3Astep-1');
    await page.getByRole('list', { name: 'Steps' }).getByRole('link', { name: '1. summarize-content' }).click();
    await page.getByRole('heading', { name: /^Run runs-wf-1:step-1/ }).waitFor();
    await page.getByRole('list', { name: 'Related runs' }).getByRole('link', { name: 'runs-wf-1', exact: true }).waitFor();
  }, 90_000);

  it('a viewer sees the run page and its live state but no write control', async () => {
    await running.api.trigger('summarize-content', { content: 'Held for the viewer.', requiresApproval: true, idempotencyKey: 'runs-held-viewer' });
    const viewerContext = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const viewer = await viewerContext.newPage();
    try {
      await signIn(viewer, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
      for (const runId of ['runs-held-viewer', 'runs-qa-1']) {
        await runPage(viewer, running.service.url, runId);
        await viewer.getByRole('heading', { name: new RegExp(`Run ${runId}`) }).waitFor();
        await viewer.getByRole('heading', { name: 'Actions', exact: true }).waitFor();
        for (const name of ['Approve', 'Reject', 'Cancel run…', 'Confirm cancel', 'Rerun…', 'Send rerun']) {
          expect(await viewer.getByRole('button', { name, exact: true }).count(), `${name} on ${runId}`).toBe(0);
        }
        await viewer.getByRole('button', { name: 'Copy curl' }).waitFor();
      }
      await viewer.getByText('The kept log needs the operator role').waitFor();
    } finally {
      await viewerContext.close();
    }
  }, 60_000);

  it('logged no console error and no CSP violation', () => {
    expect(errors.filter((e) => !/status of 40[34]/.test(e))).toEqual([]);
  });
});
