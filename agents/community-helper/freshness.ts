import { inspectWorkspacePath } from '../../src/worker-sdk/workspace-file.js';
import type { KnowledgePack } from './knowledge-pack.js';

/** Older than this, drafts carry a warning that the pack may not reflect the docs. */
export const PACK_STALE_AFTER_HOURS = 168;
const HOUR_MS = 3_600_000;

/**
 * What became of a doc since the pack was built: gone, edited after it, as packed, or not looked
 * at because its name in the docs folder is a symbolic link or a hard link (or passes through a
 * linked folder): its target may lie outside the docs folder.
 */
export type DocState = 'missing' | 'changed' | 'current' | 'not-followed';

export function packAgeHours(pack: KnowledgePack, now: Date): number {
  return Math.max(0, Math.round(((now.getTime() - Date.parse(pack.generatedAt)) / HOUR_MS) * 10) / 10);
}

/** Warnings about the pack as a whole (its age). */
export function packWarnings(pack: KnowledgePack, now: Date): string[] {
  const age = packAgeHours(pack, now);
  if (age <= PACK_STALE_AFTER_HOURS) return [];
  return [`knowledge pack v${pack.version} is ${Math.floor(age / 24)} days old (generated ${pack.generatedAt}); run drift-repair to refresh it`];
}

/** The warning for one cited doc, or null when it is as the pack describes it. */
export function docWarning(path: string, state: DocState | undefined, pack: KnowledgePack): string | null {
  if (state === 'missing') return `cited doc ${path} no longer exists in the docs folder`;
  if (state === 'changed') return `cited doc ${path} changed after knowledge pack v${pack.version} was generated`;
  if (state === 'not-followed') return `cited doc ${path} is a symbolic or hard link in the docs folder; it was not looked at`;
  return null;
}

/**
 * The state of every pack doc in the docs folder, by modification time against the pack's
 * generatedAt (hash-independent, so it holds whatever hash the indexer uses). Each doc is looked
 * at through the workspace opener with the docs folder as its root: a path that would leave the
 * folder is not looked at, and no link is followed.
 */
export async function docStates(pack: KnowledgePack, docsPath: string): Promise<Record<string, DocState>> {
  const generated = Date.parse(pack.generatedAt);
  const states: Record<string, DocState> = {};
  for (const doc of pack.docs) {
    const look = inspectWorkspacePath(docsPath, doc.path);
    if (look.ok) states[doc.path] = look.kind === 'file' && look.modifiedMs <= generated ? 'current' : look.kind === 'file' ? 'changed' : 'missing';
    else if (look.problem === 'outside-root') continue;
    else if (look.problem === 'symbolic-link' || look.problem === 'linked-folder' || look.problem === 'hard-link') states[doc.path] = 'not-followed';
    else states[doc.path] = 'missing';
  }
  return states;
}
