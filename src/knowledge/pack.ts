import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../workspace/file-writes.js';

/**
 * The knowledge pack: a versioned, hashed snapshot of the docs that readers (community-response,
 * operators) take instead of the live folder. Format (docs/knowledge.md):
 * `knowledge-pack-v<N>.json` = `{version, generatedAt, indexerVersion, packHash, docs[]}` with
 * `packHash` = sha256 hex of `JSON.stringify(docs)`, each doc `{path, hash, title, summary,
 * concepts}` (plus extra fields), and `latest.json` a copy of the newest pack.
 */
export interface PackDoc {
  /** Relative to the workspace root. */
  path: string;
  /** sha256 hex of the doc's content. */
  hash: string;
  title: string;
  summary: string;
  concepts: string[];
  [extra: string]: unknown;
}

export interface KnowledgePack {
  version: number;
  generatedAt: string;
  indexerVersion: string;
  packHash: string;
  docs: PackDoc[];
  [extra: string]: unknown;
}

export const LATEST_PACK_FILE = 'latest.json';
const PACK_FILE = /^knowledge-pack-v(\d+)\.json$/;

export function packHashOf(docs: PackDoc[]): string {
  return createHash('sha256').update(JSON.stringify(docs)).digest('hex');
}

export function packFileName(version: number): string {
  return `knowledge-pack-v${version}.json`;
}

/** Versions of the packs in `dir`, ascending (an absent folder has none). */
export async function packVersions(dir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names
    .map((n) => PACK_FILE.exec(n)?.[1])
    .filter((v): v is string => v !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

export async function readPack(path: string): Promise<KnowledgePack | null> {
  try {
    return JSON.parse(await readFile(path, 'utf8')) as KnowledgePack;
  } catch {
    return null;
  }
}

export async function readLatestPack(dir: string): Promise<KnowledgePack | null> {
  return readPack(join(dir, LATEST_PACK_FILE));
}

export interface WrittenPack {
  version: number;
  path: string;
  latestPath: string;
  packHash: string;
  docCount: number;
}

/**
 * Writes the next pack version and then `latest.json`, each atomically (temp file + rename), so
 * a reader sees a whole previous or a whole new pack. Two writers racing for one version would
 * both rename to the same name; the caller serializes writers (doc-repair lock, one drift-repair
 * at a time).
 */
export async function writePack(
  dir: string,
  input: { generatedAt: string; indexerVersion: string; docs: PackDoc[]; extra?: Record<string, unknown> },
): Promise<WrittenPack> {
  const versions = await packVersions(dir);
  const version = (versions[versions.length - 1] ?? 0) + 1;
  const packHash = packHashOf(input.docs);
  const pack: KnowledgePack = {
    version,
    generatedAt: input.generatedAt,
    indexerVersion: input.indexerVersion,
    packHash,
    ...(input.extra ?? {}),
    docs: input.docs,
  };
  const body = `${JSON.stringify(pack, null, 2)}\n`;
  const path = join(dir, packFileName(version));
  await writeFileAtomic(path, body);
  const latestPath = join(dir, LATEST_PACK_FILE);
  await writeFileAtomic(latestPath, body);
  return { version, path, latestPath, packHash, docCount: input.docs.length };
}

export interface PackVerification {
  verified: boolean;
  mode: 'pack-hash-and-source-hashes';
  checkedDocs: number;
  problems: string[];
  summary: string;
}

/**
 * Verifies a written pack: it parses, its packHash matches its docs, `latest.json` is the same
 * pack, and every doc's hash matches the file it came from (`contentOf` reads the source; null
 * means the file is gone).
 */
export async function verifyPack(
  written: WrittenPack,
  contentOf: (doc: PackDoc) => Promise<string | null>,
): Promise<PackVerification> {
  const problems: string[] = [];
  const pack = await readPack(written.path);
  const latest = await readPack(written.latestPath);
  if (!pack) problems.push(`${packFileName(written.version)} does not parse`);
  else {
    if (pack.version !== written.version) problems.push(`pack version ${pack.version} is not ${written.version}`);
    if (!Array.isArray(pack.docs)) problems.push('pack has no docs array');
    else if (packHashOf(pack.docs) !== pack.packHash) problems.push('packHash does not match the docs array');
    if (!latest || latest.version !== pack.version || latest.packHash !== pack.packHash) problems.push('latest.json is not the new pack');
    for (const doc of Array.isArray(pack.docs) ? pack.docs : []) {
      const content = await contentOf(doc);
      if (content === null) problems.push(`${doc.path}: source file is gone`);
      else if (createHash('sha256').update(content).digest('hex') !== doc.hash) problems.push(`${doc.path}: source changed since the pack was written`);
    }
  }
  const checkedDocs = pack && Array.isArray(pack.docs) ? pack.docs.length : 0;
  return {
    verified: problems.length === 0,
    mode: 'pack-hash-and-source-hashes',
    checkedDocs,
    problems: problems.slice(0, 50),
    summary:
      problems.length === 0
        ? `pack v${written.version} verified: packHash matches, latest.json matches, ${checkedDocs} doc hashes match their sources`
        : `pack v${written.version} failed verification: ${problems.length} problem(s), first: ${problems[0]}`,
  };
}
