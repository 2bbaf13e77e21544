import { realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { DisplayRoots } from '../common/display-path.js';

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The spellings of a folder a process may print: as configured and through its links. */
function spellings(folder: string): string[] {
  const given = resolve(folder);
  let real = given;
  try {
    real = realpathSync(given);
  } catch {
    // A folder that does not exist (yet) is printed only as configured.
  }
  return [...new Set([given, real])];
}

/**
 * Free text a result carries (a command's output tail, an error message, a failure message from
 * a report) with the absolute paths under the roots written the way displayPath names files:
 * `logs/<path>` in the logs folder, workspace-relative in the workspace ("." for the root
 * itself). Paths elsewhere are left as printed: they are not the service's folders. A root
 * that is a filesystem root is never rewritten, since every path would match it.
 */
export function displayText(text: string, roots: DisplayRoots): string {
  // The logs folder first: it may lie inside the workspace and then names its files itself.
  const named: Array<{ folder: string; prefix: string; self: string }> = [];
  if (roots.logsDir) for (const folder of spellings(roots.logsDir)) named.push({ folder, prefix: 'logs/', self: 'logs' });
  for (const folder of spellings(roots.workspaceRoot)) named.push({ folder, prefix: '', self: '.' });
  let out = text;
  for (const { folder, prefix, self } of named) {
    if (dirname(folder) === folder) continue;
    // `file://` URLs of the folder lose their scheme along with the folder; a longer name that
    // merely starts like the folder (`/srv/ws2` for `/srv/ws`) is not touched.
    const pattern = new RegExp(`(?:file://)?${escapeRegExp(folder)}(?:([\\\\/])|(?![\\w.-]))`, 'g');
    out = out.replace(pattern, (_match, separator: string | undefined) => (separator ? prefix : self));
  }
  return out;
}
