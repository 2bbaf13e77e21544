import { readFile } from 'node:fs/promises';

/** One document of a knowledge pack (written by drift-repair into `<knowledgePackDir>/`). */
export interface PackDoc {
  path: string;
  hash: string;
  title: string;
  summary: string;
  concepts: string[];
}

export interface KnowledgePack {
  version: number;
  generatedAt: string;
  indexerVersion: string;
  packHash: string;
  docs: PackDoc[];
}

export type PackRead = { ok: true; pack: KnowledgePack } | { ok: false; reason: string };

const MAX_DOCS = 5000;

function isString(value: unknown): value is string {
  return typeof value === 'string';
}

function docOf(raw: unknown): PackDoc | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const d = raw as Record<string, unknown>;
  if (!isString(d.path) || d.path === '') return null;
  return {
    path: d.path,
    hash: isString(d.hash) ? d.hash : '',
    title: isString(d.title) && d.title.trim() !== '' ? d.title.trim() : d.path,
    summary: isString(d.summary) ? d.summary.trim() : '',
    concepts: Array.isArray(d.concepts) ? d.concepts.filter(isString) : [],
  };
}

/** Checks a parsed pack; every problem becomes one readable reason. */
export function parseKnowledgePack(value: unknown): PackRead {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, reason: 'knowledge pack invalid: not a JSON object' };
  const p = value as Record<string, unknown>;
  if (typeof p.version !== 'number' || !Number.isInteger(p.version)) return { ok: false, reason: 'knowledge pack invalid: version is not an integer' };
  if (!isString(p.generatedAt) || Number.isNaN(Date.parse(p.generatedAt))) {
    return { ok: false, reason: 'knowledge pack invalid: generatedAt is not a date' };
  }
  if (!Array.isArray(p.docs)) return { ok: false, reason: 'knowledge pack invalid: docs is not a list' };
  const docs = p.docs.slice(0, MAX_DOCS).map(docOf).filter((d): d is PackDoc => d !== null);
  return {
    ok: true,
    pack: {
      version: p.version,
      generatedAt: p.generatedAt,
      indexerVersion: isString(p.indexerVersion) ? p.indexerVersion : 'unknown',
      packHash: isString(p.packHash) ? p.packHash : '',
      docs,
    },
  };
}

/** Reads the newest pack (`latest.json`); a missing file is the lane's `knowledge pack missing`. */
export async function readKnowledgePack(path: string): Promise<PackRead> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { ok: false, reason: 'knowledge pack missing' };
    throw err;
  }
  try {
    return parseKnowledgePack(JSON.parse(raw));
  } catch {
    return { ok: false, reason: 'knowledge pack invalid: not valid JSON' };
  }
}
