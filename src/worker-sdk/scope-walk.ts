import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join } from 'node:path';

/** Folders a scope walk never enters: installed packages are not the project's own files, and .git is history. */
export const SKIPPED_FOLDERS: ReadonlySet<string> = new Set(['node_modules', '.git']);

export interface ScopeWalkVisitor {
  /** A regular file of the scope (links are reported apart, never followed). */
  file(absolute: string, stats: Stats): void;
  /** A symbolic link: not followed, since its target may lie outside the scope. */
  symlink(absolute: string): void;
}

/**
 * Visits every regular file under `start` (or `start` itself when it is a file), depth first in
 * sorted order, so a lane's findings come out the same on every run. SKIPPED_FOLDERS are not
 * entered; an unreadable folder or an entry that vanishes during the walk is passed by. The
 * lanes that read a scope (security-audit, code-index) bound what they keep in `file`.
 */
export function walkScope(start: string, visitor: ScopeWalkVisitor): void {
  const visit = (absolute: string, stats: Stats): void => {
    if (stats.isSymbolicLink()) {
      visitor.symlink(absolute);
      return;
    }
    if (stats.isDirectory()) {
      let names: string[];
      try {
        names = readdirSync(absolute).sort();
      } catch {
        return;
      }
      for (const name of names) {
        if (SKIPPED_FOLDERS.has(name)) continue;
        const child = join(absolute, name);
        let childStats: Stats;
        try {
          childStats = lstatSync(child);
        } catch {
          continue;
        }
        visit(child, childStats);
      }
      return;
    }
    if (stats.isFile()) visitor.file(absolute, stats);
  };
  visit(start, lstatSync(start));
}
