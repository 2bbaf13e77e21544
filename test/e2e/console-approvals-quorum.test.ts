import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, collectPageErrors, NO_BROWSER, screenshotsAt, signIn } from '../support/console-browser.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { REPO_ROOT } from '../support/paths.js';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-approvals-quorum');
const WIDTHS = [1280, 390] as const;

/** Screenshots at both widths; nothing wider than the window: the page scrolls down, never sideways. */
async function screenshots(page: Page, name: string): Promise<void> {
  await screenshotsAt(page, SHOTS, name, [WIDTHS[1]]);
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTHS[1]);
  await screenshotsAt(page, SHOTS, name, [WIDTHS[0]]);
}

/**
 * Two people approve an agent-deploy from the console under `requiredApprovals: 2`: the first
 * fills in the approval input and sees "1 of 2 approvals", the second admits the replay, whose
 * payload carries the first approver's input.
 */
describe.skipIf(NO_BROWSER)(`console approvals by quorum in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  let svc: ComposedService;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    svc = await startComposedService({ config: { approvalPolicy: { 'agent-deploy': { requiredApprovals: 2 } } } });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('shows "1 of 2 approvals" after the first approval, with its input, and replays at the second', async () => {
    const api = apiClient(svc.url);
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'console-quorum-1' });
    expect(held.status).toBe(202);
    const taskId: string = held.body.taskId;

    const first = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const errors = collectPageErrors(first);
    await signIn(first, svc.url, TEST_KEYS.operator, 'ops');
    await first.goto(`${svc.url}/operator/approvals`);
    const item = first.getByRole('listitem', { name: 'Approval console-quorum-1' });
    await item.getByLabel('Approvals received').getByText('0 of 2 approvals').waitFor();
    await item.getByLabel('deployName').fill('console-target');
    await item.getByLabel('Note').fill('target chosen');
    await screenshots(first, 'input-form');
    await item.getByRole('button', { name: 'Approve' }).click();
    await first.getByRole('status').filter({ hasText: 'Recorded your approval of console-quorum-1: 1 of 2 approvals' }).waitFor();
    await item.getByLabel('Approvals received').getByText('1 of 2 approvals').waitFor();
    await item.getByText('with deployName: console-target').waitFor();
    await item.getByText(/You approved this run; it waits for 1 more approval by others/).waitFor();
    expect(await item.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await screenshots(first, 'one-of-two');
    expect(errors).toEqual([]);
    await first.close();

    const second = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await signIn(second, svc.url, TEST_KEYS.admin, 'admin-user');
    await second.goto(`${svc.url}/operator/approvals`);
    await second.getByRole('listitem', { name: 'Approval console-quorum-1' }).getByRole('button', { name: 'Approve' }).click();
    await second.getByRole('status').filter({ hasText: `Decided console-quorum-1: approved by admin-user; replay run approval-replay:${taskId}` }).waitFor();
    await second.close();

    const replay = await api.run(`approval-replay:${taskId}`);
    expect(replay.body.payload).toMatchObject({ agentName: 'summarization-agent', deployName: 'console-target' });
  });
});
