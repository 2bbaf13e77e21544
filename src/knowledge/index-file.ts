import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../workspace/file-writes.js';
import type { KnowledgeIndex } from './index-model.js';

/** Where the index lives between starts: one JSON file under logsDir, replaced atomically. */
export function knowledgeIndexPath(logsDir: string): string {
  return join(logsDir, 'knowledge', 'index.json');
}

/**
 * The persisted index, or null when there is none. A malformed file is treated as absent: the
 * next refresh rebuilds everything, which is the safe direction to err in.
 */
export async function readKnowledgeIndex(logsDir: string): Promise<KnowledgeIndex | null> {
  let raw: string;
  try {
    raw = await readFile(knowledgeIndexPath(logsDir), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const parsed = JSON.parse(raw) as Partial<KnowledgeIndex>;
    if (parsed.version !== 1 || !Array.isArray(parsed.docs) || typeof parsed.generation !== 'number') return null;
    return parsed as KnowledgeIndex;
  } catch {
    return null;
  }
}

/** Written compact: the index holds every doc's text, and indentation would only make it larger. */
export async function writeKnowledgeIndex(logsDir: string, index: KnowledgeIndex): Promise<void> {
  await writeFileAtomic(knowledgeIndexPath(logsDir), JSON.stringify(index));
}
