import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, NO_BROWSER, closeBrowserAndService, collectPageErrors, ensureConsoleBuilt, signIn } from '../support/console-browser.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import { seriousViolations } from './axe.js';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-queue');
const TYPE = 'summarize-content';
/**
 * One start a day for keys under `env/`: once the warm-up run has taken it, every later `env/` run
 * waits (ready, held by the bucket) for the rest of the test, whatever its pace. `tenants` matches
 * nothing the test triggers, so it shows its empty state.
 */
const LIMITS = {
  deploys: { match: { types: [TYPE], keyPrefix: 'env/' }, rate: { max: 1, windowSeconds: 86_400 } },
  tenants: { match: { keyPrefix: 'tenant/' }, concurrency: 2, perKey: 1 },
};
const HELD = [
  { key: 'env/prod', idempotencyKey: 'queue-ui-prod-1', priority: 3 },
  { key: 'env/prod', idempotencyKey: 'queue-ui-prod-2', priority: 5 },
  { key: 'env/prod', idempotencyKey: 'queue-ui-prod-3', priority: 3 },
  { key: 'env/staging', idempotencyKey: 'queue-ui-staging-1', priority: 3 },
];

describe.skipIf(NO_BROWSER)(`the console's queue page${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;
  const trigger = (concurrencyKey: string, idempotencyKey: string, priority = 3) =>
    running.api.post('/api/tasks/trigger', { type: TYPE, payload: { content: `Queue ${idempotencyKey}.`, idempotencyKey }, concurrencyKey, priority });

  beforeAll(async () => {
    ensureConsoleBuilt();
    running = await startRuntimeService({ limits: LIMITS });
    const warmUp = await trigger('env/warm-up', 'queue-ui-warm-up');
    expect(warmUp.status).toBe(202);
    expect((await waitForTerminal(running.api, warmUp.body.runId, 30_000)).status).toBe('success');
    for (const run of HELD) expect((await trigger(run.key, run.idempotencyKey, run.priority)).status).toBe(202);
    // The page reads what the API reads: wait until the service counts them all as waiting.
    await waitFor(async () => ((await running.api.get('/api/queue')).body.waiting === HELD.length ? true : undefined), 15_000, 'four waiting runs');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await closeBrowserAndService(browser, running?.service);
  });

  it('shows each limit bucket in words and the waiting runs by key, at 1,400 and 390 px, light and dark', async () => {
    mkdirSync(SHOTS, { recursive: true });
    for (const colorScheme of ['light', 'dark'] as const) {
      for (const width of [1400, 390]) {
        const context = await browser.newContext({ viewport: { width, height: 900 }, colorScheme });
        const page = await context.newPage();
        const errors = collectPageErrors(page);
        await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Queue' }).click();
        await page.getByRole('heading', { name: 'Queue', level: 1 }).waitFor();

        const totals = page.getByRole('list', { name: 'Queue totals' });
        await totals.getByText('waiting').waitFor();
        expect(await totals.locator('.stat').allInnerTexts()).toEqual(['0\nrunning', '4\nwaiting', '0\nheld by a not-before time', '2\nconcurrency keys', '2\nlimit buckets']);
        // Waiting by priority, the highest first, in words.
        const byPriority = await page.getByRole('list', { name: 'Waiting by priority', exact: true }).getByRole('listitem').allInnerTexts();
        expect(byPriority.map((line) => line.replace(/the oldest for .*$/, 'the oldest for …'))).toEqual([
          'Priority 5 (highest): 1 waiting, the oldest for …',
          'Priority 3 (default): 3 waiting, the oldest for …',
        ]);

        const deploys = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'deploys' }) });
        await deploys.getByText('Matches runs of type summarize-content with a key starting “env/”. Caps: 1 start per 1 d.').waitFor();
        await deploys.getByText('0 running, 4 waiting').waitFor();
        const bucketTable = deploys.getByRole('region', { name: 'Keys in bucket deploys' });
        const bucketRows = bucketTable.getByRole('row');
        await expect.poll(() => bucketRows.count()).toBe(3);
        // A column per priority with waiting runs, the highest first (headers are for screen readers on a phone).
        expect(await bucketTable.locator('thead th').allTextContents()).toEqual(['Concurrency key', 'Running', 'Waiting', 'Priority 5 (highest)', 'Priority 3 (default)', 'Oldest wait']);
        const prod = bucketRows.filter({ hasText: 'env/prod' });
        const cells = (await prod.locator('td').allInnerTexts()).map((cell) => cell.replace(/^.*\n/s, '').trim());
        expect(cells.slice(0, 5)).toEqual(['env/prod', '0', '3', '1', '2']);
        expect(cells[5]).toMatch(/\d+(\.\d)? s|\d+ ms|min/);
        const staging = (await bucketRows.filter({ hasText: 'env/staging' }).locator('td').allInnerTexts()).map((cell) => cell.replace(/^.*\n/s, '').trim());
        expect(staging.slice(1, 5)).toEqual(['0', '1', '0', '1']);

        const tenants = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'tenants' }) });
        await tenants.getByText('Caps: 2 running at once, 1 running per key.').waitFor();
        await tenants.getByText('No run of this bucket is running or waiting.').waitFor();

        const whole = page.getByRole('region', { name: 'Whole queue by concurrency key, longest waiting first' });
        await whole.getByText('0 running, 4 waiting across 2 keys, the longest waiting first').waitFor();
        const keys = await whole.locator('tbody tr td:first-child').allInnerTexts();
        // Longest waiting first: env/prod's first run was admitted before env/staging's.
        expect(keys.map((k) => k.trim())).toEqual(['env/prod', 'env/staging']);
        // Plain words only: no raw JSON or key paths on the page.
        const text = await page.locator('main').innerText();
        expect(text).not.toMatch(/[{}]|keyPrefix|oldestWaitSeconds|perKey|byPriority/);
        expect(await seriousViolations(page), `accessibility at ${width} px ${colorScheme}`).toEqual([]);
        if (width === 390) {
          const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
          expect(overflow, 'the page scrolls sideways at 390 px').toBeLessThanOrEqual(1);
        }
        await page.screenshot({ path: join(SHOTS, `queue-${width}-${colorScheme}.png`), fullPage: true });
        expect(errors).toEqual([]);
        await context.close();
      }
    }
    // Four pages, each with an accessibility scan: on a busy shared host that takes over a minute.
  }, 180_000);

  it('says what to do when no limits are configured and nothing waits; marks a full bucket and names the unkeyed runs', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
    // The same page on a service with no limits and an empty queue: the answer is the API's shape, empty.
    await page.route('**/api/queue', (route) => route.fulfill({ json: { at: new Date().toISOString(), running: 0, waiting: 0, priorities: [], buckets: [], keys: [] } }));
    await page.goto(`${running.service.url}/operator/queue`);
    await page.getByText('No limits configured: config limits, docs/queue.md.').waitFor();
    await page.getByText('Nothing is running or waiting.', { exact: false }).waitFor();
    await page.screenshot({ path: join(SHOTS, 'queue-empty-1400.png'), fullPage: true });

    // A bucket at its overall cap is marked full, and unkeyed runs read as such, never "null".
    const priorities = [{ priority: 3, waiting: 7, oldestWaitSeconds: 190.5 }];
    const unkeyed = { key: null, running: 2, waiting: 7, oldestWaitSeconds: 190.5, byPriority: priorities };
    const busy = { name: 'everything', match: {}, concurrency: 2, perKey: null, rate: null, running: 2, waiting: 7, priorities, keys: [unkeyed] };
    await page.unroute('**/api/queue');
    await page.route('**/api/queue', (route) => route.fulfill({ json: { at: new Date().toISOString(), running: 2, waiting: 7, priorities, buckets: [busy], keys: [unkeyed] } }));
    await page.reload();
    const card = page.getByRole('listitem').filter({ has: page.getByRole('heading', { name: 'everything' }) });
    await card.getByText('full', { exact: true }).waitFor();
    await card.getByText('Matches every run. Caps: 2 running at once.').waitFor();
    const row = page.getByRole('region', { name: 'Whole queue by concurrency key, longest waiting first' }).getByRole('row').filter({ hasText: 'Unkeyed runs' });
    expect((await row.locator('td').allInnerTexts()).map((cell) => cell.trim())).toEqual(['Unkeyed runs', '2', '7', '7', '3 min 10 s']);
    expect(await page.locator('main').innerText()).not.toContain('null');
    await context.close();
  });

  it('follows the queue without a reload: a run admitted while the page is open shows up in its key', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
    await page.goto(`${running.service.url}/operator/queue`);
    const whole = page.getByRole('region', { name: 'Whole queue by concurrency key, longest waiting first' });
    await whole.getByRole('row').filter({ hasText: 'env/prod' }).waitFor();
    expect(await whole.getByRole('row').filter({ hasText: 'env/qa' }).count()).toBe(0);
    expect((await trigger('env/qa', 'queue-ui-qa-1')).status).toBe(202);
    // The next refresh (every 5 s) brings it in; the generous wait covers a busy machine, not the page.
    await whole.getByRole('row').filter({ hasText: 'env/qa' }).waitFor({ timeout: 20_000 });
    await whole.getByText('0 running, 5 waiting across 3 keys, the longest waiting first').waitFor();
    await context.close();
  });

  it('the runs list says which limit holds each waiting run', async () => {
    const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
    const page = await context.newPage();
    await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
    await page.goto(`${running.service.url}/operator/runs`);
    const rows = page.getByRole('region', { name: 'Runs' }).locator('tbody tr');
    await rows.first().waitFor();
    // Every env/ run after the warm-up waits for the deploys bucket's one start a day.
    await expect.poll(() => rows.filter({ hasText: 'held by limit deploys' }).count(), { timeout: 15_000 }).toBeGreaterThanOrEqual(HELD.length);
    // The warm-up run finished: nothing holds it, so its row says nothing of a limit.
    expect(await rows.filter({ hasText: 'success' }).filter({ hasText: 'held by' }).count()).toBe(0);
    await page.screenshot({ path: join(SHOTS, 'runs-held-by-1400.png'), fullPage: true });
    await context.close();
  });
  // Last: the debounced run waits for the rest of the test and would change the counts above.
  it('the run page says when a trailing debounce\'s run may start; the runs list keeps tags apart from the run id', async () => {
    // A day's window: it ends at the next UTC midnight, so the run waits while the page is read.
    const triggered = await running.api.post('/api/tasks/trigger', {
      type: TYPE,
      payload: { content: 'Debounced for the run page.' },
      tags: ['team:core', 'release:42'],
      debounce: { key: 'queue-ui-debounce', windowMs: 86_400_000, mode: 'trailing' },
    });
    expect(triggered.status).toBe(202);
    const runId = triggered.body.runId as string;
    const view = (await running.api.get(`/api/tasks/runs/${encodeURIComponent(runId)}`)).body;
    expect(view.notBefore).toEqual(expect.any(String));
    mkdirSync(SHOTS, { recursive: true });
    for (const width of [1400, 390]) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      await signIn(page, running.service.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
      await page.goto(`${running.service.url}/operator/runs/${encodeURIComponent(runId)}`);
      const fact = page.locator('.facts > div').filter({ has: page.getByText('Runs not before', { exact: true }) });
      await fact.waitFor();
      const shown = await fact.locator('dd').innerText();
      // The instant in the browser's local time and how far off it is; the ISO text stays in the title.
      const local = await page.evaluate<string, string>((iso) => new Date(iso).toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' }), view.notBefore);
      expect(shown).toContain(local);
      expect(shown).toMatch(/\(in \d+(\.\d)? (s|min|h)( \d+ (s|min))?\)$/);
      expect(await fact.locator('time').getAttribute('title')).toBe(view.notBefore);
      if (width === 390) {
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow, 'the page scrolls sideways at 390 px').toBeLessThanOrEqual(1);
      }
      await page.screenshot({ path: join(SHOTS, `run-not-before-${width}.png`), fullPage: true });

      await page.goto(`${running.service.url}/operator/runs`);
      const row = page.getByRole('region', { name: 'Runs' }).locator('tbody tr').filter({ hasText: runId });
      await row.waitFor();
      await row.getByText(/^runs not before /).waitFor();
      if (width === 1400) {
        // The chips go on a line of their own under the run id, aligned with it and a little apart.
        const link = (await row.getByRole('link', { name: runId }).boundingBox())!;
        const chips = (await row.getByRole('list', { name: 'Tags' }).boundingBox())!;
        expect(chips.y - (link.y + link.height)).toBeGreaterThanOrEqual(3);
        expect(Math.abs(chips.x - link.x)).toBeLessThanOrEqual(1);
      }
      await page.screenshot({ path: join(SHOTS, `runs-not-before-${width}.png`), fullPage: true });

      // The queue page counts it among the waiting runs, and apart as held by its not-before time.
      await page.goto(`${running.service.url}/operator/queue`);
      const totals = page.getByRole('list', { name: 'Queue totals' });
      await totals.getByText('held by a not-before time').waitFor();
      await expect.poll(() => totals.locator('.stat').filter({ hasText: 'held by a not-before time' }).innerText()).toBe('1\nheld by a not-before time');
      await page.screenshot({ path: join(SHOTS, `queue-not-before-${width}.png`), fullPage: true });
      expect(errors).toEqual([]);
      await context.close();
    }
  }, 120_000);
});
