import { statSync, type Stats } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../workspace/boundary.js';

/** A scope of a payload, found inside the workspace. */
export interface ResolvedScope {
  /** Where it is on disk; never put into a result (cite `relative`). */
  absolute: string;
  /** Workspace-relative, with forward slashes; "." for the workspace root. */
  relative: string;
  stats: Stats;
}

/**
 * Resolves a workspace-relative scope (a folder or a file) and checks that it exists. The problem
 * names the scope as the payload gave it, under `label` ("scope", "target"): the boundary's own
 * words when it leaves the workspace (also through a link), else that it does not exist.
 */
export function resolveScope(workspaceRoot: string, scope: string, label = 'scope'): ResolvedScope | { problem: string } {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, scope);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return { problem: `${label} ${err.message}` };
    throw err;
  }
  let stats: Stats;
  try {
    stats = statSync(absolute);
  } catch {
    return { problem: `${label} ${JSON.stringify(scope)} does not exist in the workspace` };
  }
  return { absolute, relative: relative(resolve(workspaceRoot), absolute).split(sep).join('/') || '.', stats };
}
