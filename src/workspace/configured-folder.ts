import { lstatSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { DomainError } from '../domain/errors.js';
import { displayPath } from '../common/display-path.js';

/**
 * The folders the configuration names (docs, deployments, logs, knowledge packs) and the files it
 * names (the business registry): what lives in them is read and written by the service and its
 * lanes, so each is checked every time it is used, not only at start. A configured folder must
 * not itself be a symbolic link, and no folder on its path inside the workspace may be one: the
 * workspace is where an attacker can put files (a cloned repository is enough), and a link
 * there would carry the service's reads and writes outside. Folders outside the workspace were
 * chosen by the operator; only their last component is checked.
 */
export interface ConfiguredPathRoots {
  workspaceRoot: string;
  /** Also shown as `logs/<path>` in messages. */
  logsDir?: string | null;
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

function isLink(path: string): boolean | null {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return null;
  }
}

/**
 * Why the configured folder or file at `path` must not be used now, or null. `label` names it
 * in the message ("docs folder", "business registry"); the message names paths relative to the
 * workspace or the logs folder only.
 */
export function configuredPathProblem(path: string, label: string, roots: ConfiguredPathRoots): string | null {
  const target = resolve(path);
  const shown = (p: string) => displayPath(p, roots);
  if (isLink(target)) return `the ${label} (${shown(target)}) is a symbolic link; configure the folder it points to instead`;
  const workspace = resolve(roots.workspaceRoot);
  if (!inside(workspace, target)) return null;
  for (let folder = dirname(target); inside(workspace, folder); folder = dirname(folder)) {
    if (isLink(folder)) return `the ${label} (${shown(target)}) is reached through a symbolic link at ${shown(folder)}`;
  }
  return null;
}

/** Throws `scope_outside_workspace` with the problem when the configured path must not be used. */
export function assertConfiguredPath(path: string, label: string, roots: ConfiguredPathRoots): void {
  const problem = configuredPathProblem(path, label, roots);
  if (problem) throw new DomainError('scope_outside_workspace', problem);
}
