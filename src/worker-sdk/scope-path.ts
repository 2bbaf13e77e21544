import { lstatSync, type Stats } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import { resolveWorkspacePath, WorkspaceBoundaryError } from '../common/workspace-path.js';
import { inspectWorkspacePath } from './workspace-file.js';

/** A scope of a payload, found inside the workspace. */
export interface ResolvedScope {
  /** Where it is on disk; never put into a result (cite `relative`). */
  absolute: string;
  /** Workspace-relative, with forward slashes; "." for the workspace root. */
  relative: string;
  /** The scope itself, by lstat (it is never a link). */
  stats: Stats;
}

/**
 * Resolves a workspace-relative scope (a folder or a file) and checks that it exists. The problem
 * names the scope as the payload gave it, under `label` ("scope", "target"): the boundary's own
 * words when it leaves the workspace (also through a link), that it is or passes through a
 * symbolic link (links are never followed, even to a folder inside the workspace: see
 * workspace-file.ts), else that it does not exist.
 */
export function resolveScope(workspaceRoot: string, scope: string, label = 'scope'): ResolvedScope | { problem: string } {
  let absolute: string;
  try {
    absolute = resolveWorkspacePath(workspaceRoot, scope);
  } catch (err) {
    if (err instanceof WorkspaceBoundaryError) return { problem: `${label} ${err.message}` };
    throw err;
  }
  const rel = relative(resolve(workspaceRoot), absolute).split(sep).join('/') || '.';
  const look = inspectWorkspacePath(workspaceRoot, rel);
  if (!look.ok && (look.problem === 'symbolic-link' || look.problem === 'linked-folder')) {
    return { problem: `${label} ${JSON.stringify(scope)} ${look.reason}` };
  }
  let stats: Stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return { problem: `${label} ${JSON.stringify(scope)} does not exist in the workspace` };
  }
  if (stats.isSymbolicLink()) return { problem: `${label} ${JSON.stringify(scope)} is a symbolic link; links are not followed` };
  return { absolute, relative: rel, stats };
}
