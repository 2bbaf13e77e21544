/** One command of a verification plan. */
export interface PlanStep {
  command: 'npm';
  args: string[];
  /** Workspace-relative folder the command runs in: the target project. */
  cwd: string;
  /** The npm script it runs. */
  script: string;
}

/** The suite an absent `suite` names; it resolves like any other (`test:full`, else `test`). */
export const DEFAULT_SUITE = 'full';

/**
 * The npm script a suite runs: `test:<suite>` when the project defines it, else `test`. Every
 * suite name follows the same rule, so "smoke" in a project without `test:smoke` runs the whole
 * `test` script rather than nothing. Null when the project has neither.
 */
export function scriptForSuite(scripts: Readonly<Record<string, string>>, suite: string): string | null {
  const named = `test:${suite}`;
  if (typeof scripts[named] === 'string' && scripts[named].trim() !== '') return named;
  if (typeof scripts.test === 'string' && scripts.test.trim() !== '') return 'test';
  return null;
}

/** The plan for one suite: a single `npm run <script>` in the target folder, or null when no script fits. */
export function buildPlan(targetRel: string, scripts: Readonly<Record<string, string>>, suite: string): PlanStep[] | null {
  const script = scriptForSuite(scripts, suite);
  if (script === null) return null;
  return [{ command: 'npm', args: ['run', script], cwd: targetRel, script }];
}
