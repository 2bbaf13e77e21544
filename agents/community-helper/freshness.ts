import { stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import type { KnowledgePack } from './knowledge-pack.js';

/** Older than this, drafts carry a warning that the pack may not reflect the docs. */
export const PACK_STALE_AFTER_HOURS = 168;
const HOUR_MS = 3_600_000;

/** What became of a doc since the pack was built: gone, edited after it, or as packed. */
export type DocState = 'missing' | 'changed' | 'current';

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
  return null;
}

/**
 * The state of every pack doc in the docs folder, by modification time against the pack's
 * generatedAt (hash-independent, so it holds whatever hash the indexer uses). A path that would
 * leave the docs folder is not looked at.
 */
export async function docStates(pack: KnowledgePack, docsPath: string): Promise<Record<string, DocState>> {
  const generated = Date.parse(pack.generatedAt);
  const states: Record<string, DocState> = {};
  await Promise.all(
    pack.docs.map(async (doc) => {
      const file = resolve(docsPath, doc.path);
      const rel = relative(docsPath, file);
      if (rel.startsWith('..') || isAbsolute(rel)) return;
      try {
        const info = await stat(file);
        states[doc.path] = info.mtimeMs > generated ? 'changed' : 'current';
      } catch {
        states[doc.path] = 'missing';
      }
    }),
  );
  return states;
}
