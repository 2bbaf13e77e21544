import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, CHROMIUM_ARGS, collectPageErrors, NO_BROWSER, screenshotsAt } from '../support/console-browser.js';
import { REPO_ROOT } from '../support/paths.js';
import { QUORUM_KEYS, useQuorumService } from '../support/quorum-service.js';

/** Screenshots for a person to look at; the folder is git-ignored. */
const SHOTS = join(REPO_ROOT, 'test-output', 'screenshots', 'console-approval-link');
const WIDTHS = [1400, 390] as const;

async function screenshots(page: Page, name: string): Promise<void> {
  await screenshotsAt(page, SHOTS, name, [WIDTHS[1]]);
  expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(WIDTHS[1]);
  await screenshotsAt(page, SHOTS, name, [WIDTHS[0]]);
}

/**
 * An approval reached by its link in a real browser, without signing in: the page reads the
 * secret from the fragment, drops it from the address, shows the approval and records the
 * approver's decision as one of the two the policy asks for.
 */
describe.skipIf(NO_BROWSER)(`console approval by link in a real browser${NO_BROWSER ? ` (skipped: no chromium at ${CHROMIUM})` : ''}`, () => {
  const fixture = useQuorumService();
  let browser: Browser;
  beforeAll(async () => {
    if (!existsSync(join(REPO_ROOT, 'console', 'dist', 'index.html'))) {
      execSync('npx vite build --config console/vite.config.ts', { cwd: REPO_ROOT, stdio: 'inherit' });
    }
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('shows the approval and takes the named approver’s decision at 1,400 and 390 px', async () => {
    const { svc, api } = fixture;
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'console-link-1' }, QUORUM_KEYS.requester);
    const taskId: string = held.body.taskId;
    const made = await api.post(`/api/approvals/${taskId}/links`, { approvers: ['alice'] }, QUORUM_KEYS.requester);
    expect(made.status).toBe(201);

    const page = await browser.newPage({ viewport: { width: WIDTHS[0], height: 900 } });
    const errors = collectPageErrors(page);
    await page.goto(`${svc.url}${made.body.links[0].path}`);
    await page.getByRole('heading', { name: /agent-deploy — console-link-1/ }).waitFor();
    await page.getByText('0 of 2 approvals').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    await screenshots(page, 'opened');
    await page.getByLabel('Note').fill('approved from the link');
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('1 of 2 approvals').first().waitFor();
    await screenshots(page, 'decided');
    expect(errors).toEqual([]);
    await page.close();

    const decided = await api.get(`/api/approvals/${taskId}`, QUORUM_KEYS.bob);
    expect(decided.body.decisionHistory).toMatchObject([{ actor: 'alice', decision: 'approved', note: 'approved from the link' }]);
  }, 120_000);
});
