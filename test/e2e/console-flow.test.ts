import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { installTaskTypes } from '../../src/task-types/installed.js';
import { createTaskTypeRegistry } from '../../src/task-types/registry.js';
import { echoNoteType } from '../fixtures/task-types/echo-note/definition.js';
import { echoNoteLane } from '../fixtures/task-types/echo-note/lane.js';
import { CHROMIUM, CHROMIUM_ARGS, collectPageErrors, ensureConsoleBuilt, NO_BROWSER, screenshotsAt, signIn } from '../support/console-browser.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-flow');

/**
 * The console's flow page in a real browser: the graph shows each step's state and changes as
 * the flow moves on (an approval, then the steps running), without a reload.
 */
describe.skipIf(NO_BROWSER)(`console flow page in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let svc: ComposedService;
  let browser: Browser;

  beforeAll(async () => {
    ensureConsoleBuilt();
    svc = await startComposedService({ runtime: true, extraTaskTypes: { types: [echoNoteType], lanes: [echoNoteLane] } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
    installTaskTypes(createTaskTypeRegistry(BUILT_IN_REGISTRY.all()));
  });

  it('draws the graph and follows its steps live: awaiting approval and waiting, then both success, each linking to its run', async () => {
    const api = apiClient(svc.url);
    const steps = [
      { key: 'gate', type: 'echo-note', payload: { note: 'gated', requiresApproval: true } },
      { key: 'after', type: 'echo-note', payload: { note: 'after' }, dependsOn: ['gate'] },
    ];
    expect((await api.post('/api/flows', { id: 'console-flow', steps })).status).toBe(202);

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectPageErrors(page);
    await signIn(page, svc.url, TEST_KEYS.operator, 'ops');
    await page.goto(`${svc.url}/operator/flows/console-flow`);
    const graph = page.getByRole('group', { name: 'Flow steps, drawn' });
    await graph.getByText('awaiting approval', { exact: true }).waitFor();
    await graph.getByText('waiting', { exact: true }).waitFor();
    expect(await graph.getByRole('link', { name: 'gate' }).getAttribute('href')).toBe('/operator/runs/flow%3Aconsole-flow%3Agate');

    const held = await api.run('flow:console-flow:gate');
    const decided = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved' }, TEST_KEYS.admin);
    expect(decided.status).toBe(200);
    // No reload: the page's event stream brings the new states.
    await graph.getByText('success', { exact: true }).nth(1).waitFor({ timeout: 20_000 });
    expect(await graph.getByText('waiting', { exact: true }).count()).toBe(0);
    // An approved step's work is its replay: the link goes there now.
    expect(await graph.getByRole('link', { name: 'gate' }).getAttribute('href')).toMatch(/^\/operator\/runs\/approval-replay%3A/);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('lists the flow in the flows table, wide and on a phone', async () => {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const errors = collectPageErrors(page);
    await signIn(page, svc.url, TEST_KEYS.viewer, 'viewer-bot (viewer)');
    await page.goto(`${svc.url}/operator/flows`);
    const table = page.getByRole('region', { name: 'Flows' }).getByRole('table');
    await table.getByRole('link', { name: 'console-flow' }).waitFor();
    expect(await table.locator('caption').textContent()).toBe('1 flow');
    const headers = await table.getByRole('columnheader').allTextContents();
    expect(headers).toEqual(['Flow', 'Status', 'Steps', 'Created', 'Requested by']);
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'console-flow' }) });
    expect(await row.getByRole('cell').nth(2).textContent()).toBe('2');
    await screenshotsAt(page, SHOTS, 'flows-list', [1400, 390]);
    // On a phone the row stacks and nothing is wider than the screen.
    await page.setViewportSize({ width: 390, height: 900 });
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - document.documentElement.clientWidth')).toBeLessThanOrEqual(0);
    expect(await table.getByRole('link', { name: 'console-flow' }).isVisible()).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });
});
