import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { IndexedDoc } from './index-model.js';

export interface KnowledgePaths {
  docsPath: string;
  workspaceRoot: string;
}

/** A path relative to the workspace root, or null when it leaves the workspace. */
function insideWorkspace(workspaceRoot: string, absolute: string): string | null {
  const rel = relative(workspaceRoot, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join('/');
}

/**
 * The workspace files one doc describes: the non-doc files it links to (resolved from the doc's
 * folder) and the paths it names in code spans (resolved from the workspace root), each once and
 * confined to the workspace, relative to the workspace root.
 */
export function describedFilesOf(doc: IndexedDoc, paths: KnowledgePaths): string[] {
  const out = new Set<string>();
  for (const link of doc.links) {
    if (link.kind !== 'workspace' || link.resolved === null) continue;
    const inside = insideWorkspace(paths.workspaceRoot, resolve(paths.docsPath, link.resolved));
    if (inside) out.add(inside);
  }
  for (const file of doc.mentionedFiles) {
    const inside = insideWorkspace(paths.workspaceRoot, resolve(paths.workspaceRoot, file));
    if (inside) out.add(inside);
  }
  return [...out].sort();
}
