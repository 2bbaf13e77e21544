import { posix } from 'node:path';
import { walkScope, type WalkSkip } from '../../worker-sdk/scope-walk.js';
import { createWorkspaceFile, ensureWorkspaceFolder, readWorkspaceFile } from '../../worker-sdk/workspace-file.js';

/** A template entry that was not copied, and why. */
export interface SkippedEntry {
  path: string;
  reason: string;
}

export type TemplateCopy =
  | { ok: true; filesCopied: number; skipped: SkippedEntry[]; skippedSymlinks: string[] }
  | { ok: false; error: string };

/** Why the walk passed an entry by, in a deployment's words; null for what stops the copy. */
function skipReason(skip: WalkSkip): string | null {
  if (skip.reason === 'symbolic-link') return 'symbolic link: not followed, its target may lie outside the template';
  if (skip.reason === 'hard-link') return skip.detail ?? 'hard link: its content may live outside the workspace';
  if (skip.reason === 'not-a-regular-file') return 'not a regular file (a FIFO, socket or device)';
  return null;
}

/**
 * Copies the regular files of `templateDir` into the empty folder `deployPath`, with their
 * modes. The template is walked and read the way lanes read a workspace (src/worker-sdk/): no
 * symbolic link is followed and no hard-linked file is read, since either may bring a file from
 * outside the template into the deployment; each is listed in `skipped` with its reason
 * (symbolic links also in `skippedSymlinks`). Files are created exclusively in the deployment,
 * never through a link. Folders are made as the files in them need them.
 */
export function copyTemplate(templateDir: string, deployPath: string): TemplateCopy {
  const walk = walkScope(templateDir, templateDir, { ignore: [] });
  const skipped: SkippedEntry[] = [];
  for (const skip of walk.skipped) {
    const reason = skipReason(skip);
    if (reason === null) return { ok: false, error: `template entry ${skip.path} could not be read (${skip.reason})` };
    skipped.push({ path: skip.path, reason });
  }
  let filesCopied = 0;
  for (const file of walk.files) {
    const read = readWorkspaceFile(templateDir, file.path);
    if (!read.ok) {
      // Swapped for a link (or a hard link) since the walk looked: passed by like one.
      if (read.problem === 'symbolic-link' || read.problem === 'hard-link' || read.problem === 'linked-folder') {
        skipped.push({ path: file.path, reason: read.reason });
        continue;
      }
      return { ok: false, error: `template file ${read.message}` };
    }
    const folder = posix.dirname(file.path);
    if (folder !== '.') {
      const made = ensureWorkspaceFolder(deployPath, folder);
      if (!made.ok) return { ok: false, error: `deployment folder ${made.message}` };
    }
    const written = createWorkspaceFile(deployPath, file.path, read.content, read.mode & 0o777);
    if (!written.ok) return { ok: false, error: `deployment file ${written.message}` };
    filesCopied += 1;
  }
  const skippedSymlinks = walk.skipped.filter((s) => s.reason === 'symbolic-link').map((s) => s.path);
  return { ok: true, filesCopied, skipped, skippedSymlinks };
}
