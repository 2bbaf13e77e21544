import { existsSync } from 'node:fs';
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
