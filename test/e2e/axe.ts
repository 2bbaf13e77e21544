import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { REPO_ROOT } from '../support/paths.js';

const AXE_SOURCE = readFileSync(join(REPO_ROOT, 'node_modules', 'axe-core', 'axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's serious and critical violations. The script goes in through the DevTools protocol
 * (page.evaluate), since the console's CSP rightly refuses an injected inline <script>.
 */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeViolation[]>(`
    axe.run(document, { resultTypes: ['violations'] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n) => n.target.join(' ')) })))
  `);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`);
}
