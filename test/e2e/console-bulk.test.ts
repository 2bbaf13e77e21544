import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, NO_BROWSER, closeBrowserAndService, collectPageErrors, ensureConsoleBuilt, screenshotsAt, signIn } from '../support/console-browser.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-bulk');
const WIDTHS = [1280, 390] as const;
const TYPE = 'summarize-content';
const HELD = ['bulk-ui-1', 'bulk-ui-2', 'bulk-ui-3'];

const screenshots = (page: Page, name: string) => screenshotsAt(page, SHOTS, name, WIDTHS);

describe.skipIf(NO_BROWSER)(`bulk actions on the console's runs list${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;

  beforeAll(async () => {
    ensureConsoleBuilt();
    running = await startRuntimeService();
    // Held runs stay queued until someone decides: they wait for the test, whatever its pace.
    for (const key of HELD) expect((await running.api.trigger(TYPE, { content: `Hold ${key}.`, requiresApproval: true, idempotencyKey: key })).status).toBe(202);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await closeBrowserAndService(browser, running?.service);
  });

  it('an operator selects two runs, sees them named in the confirmation, and cancels exactly those', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectPageErrors(page);
    await signIn(page, running.service.url, TEST_KEYS.operator, 'ops (operator)');
    await page.goto(`${running.service.url}/operator/runs`);
    await page.getByRole('link', { name: 'bulk-ui-3' }).waitFor();

    await page.getByRole('checkbox', { name: 'Select run bulk-ui-1' }).check();
    await page.getByRole('checkbox', { name: 'Select run bulk-ui-2' }).check();
    const bar = page.getByRole('region', { name: 'Selected runs' });
    await bar.getByText('2 runs selected').waitFor();
    await screenshots(page, 'selected');

    await bar.getByRole('button', { name: 'Cancel selected…' }).click();
    const confirmation = page.getByRole('group', { name: 'Confirm cancel of selected runs' });
    await confirmation.getByText('Cancel 2 runs?').waitFor();
    const named = await confirmation.locator('li .mono').allTextContents();
    expect(named.sort()).toEqual(['bulk-ui-1', 'bulk-ui-2']);
    // Nothing is sent before the confirmation.
    for (const id of HELD) expect((await running.api.run(id)).body.status).toBe('pending');
    await screenshots(page, 'confirm');

    const sent = page.waitForRequest((req) => new URL(req.url()).pathname === '/api/tasks/bulk/cancel');
    await confirmation.getByRole('button', { name: 'Confirm cancel of 2 runs' }).click();
    expect(JSON.parse((await sent).postData() ?? '{}')).toEqual({ runIds: expect.arrayContaining(['bulk-ui-1', 'bulk-ui-2']) });
    const outcome = page.locator('.bulk-outcome');
    await outcome.getByText('Cancel: 2 runs').waitFor();
    await outcome.getByText('bulk-ui-1').waitFor();
    await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: 'cancelled 2' }).waitFor({ timeout: 15_000 });
    expect(await outcome.locator('li').allTextContents()).toEqual(expect.arrayContaining(['bulk-ui-1: cancelled', 'bulk-ui-2: cancelled']));
    await screenshots(page, 'done');

    expect((await running.api.run('bulk-ui-1')).body.status).toBe('cancelled');
    expect((await running.api.run('bulk-ui-2')).body.status).toBe('cancelled');
    expect((await running.api.run('bulk-ui-3')).body.status).toBe('pending');
    // The list follows: the two rows now say cancelled, and the selection is empty.
    await page.getByRole('row').filter({ hasText: 'bulk-ui-1' }).locator('.badge', { hasText: 'cancelled' }).waitFor({ timeout: 15_000 });
    expect(await page.getByRole('checkbox', { name: 'Select run bulk-ui-1' }).isChecked()).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('shows a viewer no checkboxes: only operators act on runs', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
    await page.goto(`${running.service.url}/operator/runs`);
    await page.getByRole('link', { name: 'bulk-ui-3' }).waitFor();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.getByRole('region', { name: 'Selected runs' }).count()).toBe(0);
    await page.close();
  });
});
