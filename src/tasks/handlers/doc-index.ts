import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../../config/types.js';
import { writeJsonAtomic } from './atomic-write.js';

/** What doc-sync remembers between runs to tell whether the docs changed. */
export interface DocIndex {
  version: 1;
  generatedAt: string;
  docsPath: string;
  /** Doc path (relative to docsPath) → sha256 of its content. */
  files: Record<string, string>;
  knowledgePackPath: string | null;
}

export function docIndexPath(config: AppConfig): string {
  return join(config.logsDir, 'doc-index.json');
}

/**
 * The previous index, or null when there is none. An unreadable or malformed index is treated as
 * absent: the next pass re-indexes everything, which is the safe direction to err in.
 */
export async function readDocIndex(config: AppConfig): Promise<DocIndex | null> {
  let raw: string;
  try {
    raw = await readFile(docIndexPath(config), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<DocIndex>;
    if (parsed.version !== 1 || typeof parsed.files !== 'object' || parsed.files === null) return null;
    return {
      version: 1,
      generatedAt: String(parsed.generatedAt ?? ''),
      docsPath: String(parsed.docsPath ?? ''),
      files: parsed.files,
      knowledgePackPath: typeof parsed.knowledgePackPath === 'string' ? parsed.knowledgePackPath : null,
    };
  } catch {
    return null;
  }
}

export async function writeDocIndex(config: AppConfig, index: DocIndex): Promise<void> {
  await writeJsonAtomic(docIndexPath(config), index);
}
