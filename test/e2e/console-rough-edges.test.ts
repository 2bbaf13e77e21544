import { execSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, closeBrowserAndService, collectPageErrors, NO_BROWSER, signIn } from '../support/console-browser.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { AGENTS_DIR, REPO_ROOT } from '../support/paths.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Screenshots for a person to look at after a change to these pages; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-rough-edges');
const WIDTHS = [1280, 390] as const;
const VIEWPORT_HEIGHT = 900;

/** A record rendered through key paths: `requestsLast24h[0].type`, `service.lastStartedAt`. */
const KEY_PATH = /\w\[\d+\]|\b[a-z]+[A-Za-z0-9]*\.[a-z]+[A-Z][A-Za-z0-9]*\b|\b[a-z]+[A-Z][A-Za-z0-9]*\.[a-z]+\b/;

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(SHOTS, `${name}-${page.viewportSize()?.width}.png`), fullPage: true });
}

describe.skipIf(NO_BROWSER)(`console rough edges in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let running: RuntimeService;
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    mkdirSync(SHOTS, { recursive: true });
    running = await startRuntimeService({ agentsDir: AGENTS_DIR });
    base = running.service.url;
    const { api } = running;
    expect((await api.trigger('summarize-content', { content: 'The deploy finished at noon. Nothing broke.', idempotencyKey: 'edges-plain-1' })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Held for a decision.', idempotencyKey: 'edges-held-1', requiresApproval: true })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Held, then cancelled.', idempotencyKey: 'edges-held-2', requiresApproval: true })).status).toBe(202);
    expect((await waitForTerminal(api, 'edges-plain-1')).status).toBe('success');
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);

  afterAll(() => closeBrowserAndService(browser, running?.service));

  /** A signed-in operator page at each width, in turn. */
  async function atEachWidth(check: (page: Page, width: number) => Promise<void>): Promise<void> {
    for (const width of WIDTHS) {
      const context: BrowserContext = await browser.newContext({ viewport: { width, height: VIEWPORT_HEIGHT } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      try {
        await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
        await check(page, width);
        expect(errors, `@${width}px`).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }

  it('a held run reads "awaiting approval" in the runs list and on its page, the list filters on it, and its status stays pending', async () => {
    expect((await running.api.run('edges-held-1')).body.status).toBe('pending');
    await atEachWidth(async (page) => {
      await page.goto(`${base}/operator/runs`);
      const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'edges-held-1', exact: true }) });
      await row.locator('.badge', { hasText: 'awaiting approval' }).waitFor();
      const plain = page.getByRole('row').filter({ has: page.getByRole('link', { name: 'edges-plain-1', exact: true }) });
      await plain.getByText('success', { exact: true }).waitFor();
      expect(await plain.getByText('awaiting approval').count()).toBe(0);
      // The count chip and the filter: only held runs are listed.
      await page.getByRole('list', { name: 'Runs per status' }).getByRole('button', { name: /awaiting approval/ }).getByText('2').waitFor();
      await page.getByLabel('Status', { exact: true }).selectOption('awaiting-approval');
      await page.getByText(/awaiting approval: 2 shown of 2/).waitFor();
      expect(await page.getByRole('link', { name: 'edges-plain-1', exact: true }).count()).toBe(0);
      await shoot(page, 'runs-awaiting-approval');

      await page.getByRole('link', { name: 'edges-held-1', exact: true }).click();
      await page.getByRole('heading', { name: /^Run edges-held-1/ }).getByText('awaiting approval').waitFor();
      await page.getByText('Waiting for', { exact: true }).waitFor();
      // The run graph is drawn for a held run: admission, then the approval it waits for.
      await page.getByRole('list', { name: 'Stages' }).getByRole('listitem').filter({ hasText: /^approval awaiting approval/ }).waitFor();
      await shoot(page, 'run-held');
    });
    expect((await running.api.run('edges-held-1')).body.status).toBe('pending');
  }, 90_000);

  it('the run graph is not drawn for a plain run (admitted, executed once, ended)', async () => {
    await atEachWidth(async (page) => {
      await page.goto(`${base}/operator/runs/edges-plain-1`);
      await page.getByRole('heading', { name: 'Timeline' }).waitFor();
      await page.getByRole('heading', { name: /^Run edges-plain-1/ }).getByText('success').waitFor();
      expect(await page.getByRole('heading', { name: 'Run graph' }).count()).toBe(0);
    });
  }, 60_000);

  it('cancel asks for confirmation: the first press changes nothing, "Keep the run" steps back, confirming cancels', async () => {
    const context = await browser.newContext({ viewport: { width: 390, height: VIEWPORT_HEIGHT } });
    const page = await context.newPage();
    const errors = collectPageErrors(page);
    try {
      await signIn(page, base, TEST_KEYS.operator, 'ops (operator)');
      await page.goto(`${base}/operator/runs/edges-held-2`);
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      const confirm = page.getByRole('group', { name: 'Confirm cancel' });
      await confirm.getByText('Cancel run edges-held-2? It will never run: its approval request is withdrawn. This cannot be undone.').waitFor();
      await shoot(page, 'run-cancel-confirm');
      expect((await running.api.run('edges-held-2')).body).toMatchObject({ status: 'pending', cancellation: null });
      await confirm.getByRole('button', { name: 'Keep the run' }).click();
      await page.getByRole('button', { name: 'Cancel run…' }).waitFor();
      expect((await running.api.run('edges-held-2')).body.status).toBe('pending');
      await page.getByRole('button', { name: 'Cancel run…' }).click();
      await confirm.getByRole('button', { name: 'Confirm cancel' }).click();
      await page.getByRole('heading', { name: /^Run edges-held-2/ }).getByText('cancelled').waitFor({ timeout: 15_000 });
      expect((await running.api.run('edges-held-2')).body).toMatchObject({ status: 'cancelled', cancellation: { requestedBy: 'ops' } });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  }, 60_000);

  it('the public proof page renders its records with labelled fields and tables, never key paths', async () => {
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: VIEWPORT_HEIGHT } });
      const page = await context.newPage();
      const errors = collectPageErrors(page);
      try {
        await page.goto(`${base}/operator/public-proof`);
        const demand = page.getByRole('region', { name: 'Demand', exact: true });
        // The per-type request counts of the last day are a table with named columns.
        const requests = demand.getByRole('table').filter({ has: page.getByRole('columnheader', { name: 'Count' }) });
        await requests.getByRole('cell', { name: 'summarize-content', exact: true }).waitFor();
        await page.getByRole('region', { name: 'Overview', exact: true }).getByText('Last started at').waitFor();
        await page.getByRole('table', { name: 'Latest milestones' }).getByText(/ago|just now/).first().waitFor();
        const text = (await page.locator('main').textContent()) ?? '';
        expect(text).not.toMatch(KEY_PATH);
        expect(text).not.toContain('requestsLast24h');
        await shoot(page, 'public-proof');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  }, 60_000);

  it('the agents page draws the topology by role within one screen, collapsed or open, and says readiness in words', async () => {
    const overview = (await running.api.get('/api/agents/overview')).body;
    const roles = new Set<string>(overview.agents.map((a: any) => a.capability?.spine ?? 'other'));
    expect(overview.topology.counts.totalNodes).toBeGreaterThan(40);
    await atEachWidth(async (page, width) => {
      await page.goto(`${base}/operator/agents`);
      const section = page.getByRole('region', { name: 'Topology by role' });
      const drawing = section.getByRole('group', { name: /^Agent topology by role/ });
      await drawing.locator('.drawing-node').first().waitFor();
      // One node per role (and the orchestrator, but for a phone's width): no task, agent or skill node while collapsed.
      const orchestrator = width > 640 ? 1 : 0;
      expect(await drawing.locator('.drawing-node').count()).toBe(roles.size + orchestrator);
      expect(await drawing.getByRole('button', { expanded: false }).count()).toBe(roles.size);
      const height = async () => (await section.boundingBox())!.height;
      expect(await height(), `collapsed @${width}px`).toBeLessThanOrEqual(VIEWPORT_HEIGHT);
      // Collapsed, the drawing fits the width too: nothing to scroll sideways.
      expect(await drawing.evaluate((el) => el.scrollWidth - el.clientWidth), `collapsed @${width}px`).toBeLessThanOrEqual(1);
      await shoot(page, 'agents');

      // A role opens to its agents.
      await drawing.getByRole('button', { name: 'Verification' }).click();
      for (const a of overview.agents.filter((x: any) => x.capability?.spine === 'verification')) await drawing.getByText(a.id, { exact: true }).waitFor();
      expect(await drawing.getByText('build-refactor-agent', { exact: true }).count()).toBe(0);
      await section.getByRole('button', { name: 'Expand all roles' }).click();
      await drawing.getByText('build-refactor-agent', { exact: true }).waitFor();
      expect(await drawing.locator('.drawing-node').count()).toBe(roles.size + orchestrator + overview.agents.length);
      expect(await height(), `expanded @${width}px`).toBeLessThanOrEqual(VIEWPORT_HEIGHT);
      await shoot(page, 'agents-expanded');

      // Readiness in words, beside the level.
      const table = page.getByRole('table', { name: /agents by role/ });
      await table.getByText(/Can run, not yet proven|Working:|Proven:/).first().waitFor();
      await table.getByText('Verification', { exact: false }).first().waitFor();
    });
  }, 90_000);

  it('the trigger form leaves a workspace path empty with its description; the catalog shows each type\'s purpose and fits 390 px', async () => {
    await atEachWidth(async (page, width) => {
      await page.goto(`${base}/operator/tasks`);
      await page.getByLabel('Task type').selectOption('security-audit');
      expect(JSON.parse(await page.getByLabel('Payload (JSON object)').inputValue())).toEqual({ type: 'scan', scope: '' });
      const fields = page.getByRole('definition').filter({ hasText: 'Relative to the workspace root' });
      await fields.first().waitFor();
      await page.getByText('fill in a path of your workspace').first().waitFor();
      const catalog = page.getByRole('table', { name: /task types/ });
      await catalog.getByText('Summarizes supplied content', { exact: false }).waitFor();
      if (width === 390) {
        const overflow = await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth');
        expect(overflow).toBeLessThanOrEqual(1);
        const region = page.getByRole('region', { name: 'Task catalog' });
        expect(await region.evaluate((el) => el.scrollWidth - el.clientWidth)).toBeLessThanOrEqual(1);
      }
      await shoot(page, 'tasks');
    });
  }, 60_000);
});
