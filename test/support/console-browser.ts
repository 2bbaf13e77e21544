import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';

/** The browser the console tests drive (headless, no sandbox: the tests run as an ordinary user in a container). */
export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
export const NO_BROWSER = !existsSync(CHROMIUM);

/** Signs in with a bearer key through the login form and waits for the identity to show. */
export async function signIn(page: Page, baseUrl: string, key: string, shownAs: string): Promise<void> {
  await page.goto(`${baseUrl}/operator`);
  await page.getByLabel('Bearer token').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByLabel('Signed in as').getByText(shownAs).waitFor();
}

/** Collects console errors and uncaught page errors, for a test to assert there were none. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`page error: ${err.message}`));
  return errors;
}

/** Closes the browser, then stops the service even when closing the browser failed. */
export async function closeBrowserAndService(browser: Browser | undefined, service: { kill(): Promise<unknown> } | undefined): Promise<void> {
  try {
    await browser?.close();
  } finally {
    await service?.kill();
  }
}

/**
 * Full-page screenshots of the page at each width, for a person to look at, as
 * `<dir>/<name>-<width>.png`; the viewport is left at the first width.
 */
export async function screenshotsAtWidths(page: Page, dir: string, name: string, widths: readonly number[]): Promise<void> {
  mkdirSync(dir, { recursive: true });
  for (const width of widths) {
    await page.setViewportSize({ width, height: 900 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: join(dir, `${name}-${width}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: widths[0]!, height: 900 });
}
