import { isAbsolute, relative, sep } from 'node:path';

/** The folders a result may name files in. */
export interface DisplayRoots {
  workspaceRoot: string;
  /** The logs folder (drafts, knowledge packs, indexes); named `logs/` in results wherever it is. */
  logsDir?: string | null;
}

function inside(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === '') return '.';
  // `..foo` is a file of the root; only `..` itself or `../…` climbs out of it.
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

/**
 * How a result or a response names a file: never by the server's absolute path. A file in the
 * logs folder is `logs/<path in it>`, a file in the workspace its workspace-relative path; a
 * file in neither is named by its last component only, prefixed `outside:` so a reader sees it
 * is not under either root.
 */
export function displayPath(path: string, roots: DisplayRoots): string {
  if (roots.logsDir) {
    const inLogs = inside(roots.logsDir, path);
    if (inLogs !== null) return inLogs === '.' ? 'logs' : `logs/${inLogs}`;
  }
  const inWorkspace = inside(roots.workspaceRoot, path);
  if (inWorkspace !== null) return inWorkspace;
  const last = path.split(/[\\/]/).filter(Boolean).pop() ?? '';
  return `outside:${last}`;
}
