import { dirname, join, resolve } from 'node:path';
import { readWorkspaceText } from '../../src/worker-sdk/workspace-file.js';
import { isInside, lstatOrNull, workspaceRelative, type ChangeScope } from './scope.js';

/** A package.json larger than this is not a project manifest. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

/** How the change set is verified: one npm script of the scope's own project. */
export interface VerificationPlan {
  script: string;
  /** Absolute folder of the project's package.json; the script runs there. */
  projectDir: string;
  /** The same folder, workspace-relative, for evidence. */
  project: string;
  command: string;
}

/**
 * The only scripts the lane runs: tests, lint, type checks and builds. A package.json may
 * define anything (`deploy`, `publish`, `postinstall` chains); a verification step must not
 * be able to reach those, whatever the payload names.
 */
export const VERIFICATION_SCRIPT_NAMES = /^(?:test|test:[A-Za-z0-9_.-]+|lint|typecheck|build)$/;

/**
 * The folder of the nearest package.json at or above the scope, never above the workspace root.
 * Any entry of that name counts: one that is a link or a hard link is then refused when it is
 * read, rather than passed by for a package.json further up.
 */
export function findProjectDir(workspaceRoot: string, scope: ChangeScope): string | null {
  const root = resolve(workspaceRoot);
  let dir = scope.isFile ? dirname(scope.absolute) : scope.absolute;
  while (isInside(root, dir)) {
    if (lstatOrNull(join(dir, 'package.json')) !== null) return dir;
    if (dir === root) break;
    dir = dirname(dir);
  }
  return null;
}

/** The scripts of the package.json at `packageJson` (workspace-relative), read through the workspace opener. */
function scriptsOf(workspaceRoot: string, packageJson: string): Record<string, unknown> | { problem: string } {
  const read = readWorkspaceText(workspaceRoot, packageJson, { maxBytes: MAX_MANIFEST_BYTES });
  if (!read.ok) return { problem: read.problem === 'too-large' ? 'package.json is larger than 1 MiB' : `package.json ${read.reason}; it was not read` };
  try {
    const parsed: unknown = JSON.parse(read.text);
    const scripts = (parsed as { scripts?: unknown } | null)?.scripts;
    return typeof scripts === 'object' && scripts !== null && !Array.isArray(scripts) ? (scripts as Record<string, unknown>) : {};
  } catch (err) {
    return { problem: `package.json is not valid JSON (${(err as Error).message})` };
  }
}

/**
 * Decides, before any file changes, whether the requested verification can run: the script
 * name is whitelisted and the scope's project defines it. A verification that could never run
 * fails the request up front instead of after the edits.
 */
export function planVerification(workspaceRoot: string, scope: ChangeScope, script: string): VerificationPlan | { problem: string } {
  if (!VERIFICATION_SCRIPT_NAMES.test(script)) {
    return { problem: `verification script ${JSON.stringify(script)} is not allowed; the lane runs only test, test:<name>, lint, typecheck or build` };
  }
  const projectDir = findProjectDir(workspaceRoot, scope);
  if (projectDir === null) {
    return { problem: `no package.json at or above the scope ${JSON.stringify(scope.relative)} inside the workspace, so there is no project script to verify with` };
  }
  const project = workspaceRelative(workspaceRoot, projectDir);
  const scripts = scriptsOf(workspaceRoot, project === '.' ? 'package.json' : `${project}/package.json`);
  if ('problem' in scripts) return { problem: `${project}/${scripts.problem}` };
  if (typeof scripts[script] !== 'string') {
    const available = Object.keys(scripts).filter((name) => VERIFICATION_SCRIPT_NAMES.test(name));
    return {
      problem: `${project}/package.json defines no "${script}" script (verification scripts it has: ${available.length > 0 ? available.join(', ') : 'none'})`,
    };
  }
  return { script, projectDir, project, command: `npm run ${script}` };
}
