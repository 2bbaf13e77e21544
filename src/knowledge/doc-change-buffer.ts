import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppConfig } from '../config/types.js';
import { DomainError } from '../domain/errors.js';
import { writeJsonAtomic } from '../workspace/file-writes.js';

/** Pending paths at which buffered drift is handed to a drift-repair (the spec's threshold). */
export const DOC_CHANGE_THRESHOLD = 25;
/** The buffer never grows past this; beyond the threshold more paths add nothing to a repair. */
export const DOC_CHANGE_BUFFER_CAP = 1000;

export interface DocChangeBuffer {
  /** Doc paths relative to docsPath, in the order they first changed, without duplicates. */
  pending: string[];
  updatedAt: string | null;
}

export function docChangeBufferPath(config: Pick<AppConfig, 'logsDir'>): string {
  return join(config.logsDir, 'doc-change-buffer.json');
}

export async function readDocChangeBuffer(config: Pick<AppConfig, 'logsDir'>): Promise<DocChangeBuffer> {
  let raw: string;
  try {
    raw = await readFile(docChangeBufferPath(config), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { pending: [], updatedAt: null };
    throw err;
  }
  let parsed: Partial<DocChangeBuffer>;
  try {
    parsed = JSON.parse(raw) as Partial<DocChangeBuffer>;
  } catch {
    throw new DomainError('state_corrupt', `doc-change buffer ${docChangeBufferPath(config)} is not valid JSON; repair or remove it`);
  }
  const pending = Array.isArray(parsed.pending) ? parsed.pending.filter((p): p is string => typeof p === 'string') : [];
  return { pending, updatedAt: typeof parsed.updatedAt === 'string' ? parsed.updatedAt : null };
}

// Buffer updates are read-modify-write of one file; chaining them keeps two concurrent
// doc-change runs of this process from losing each other's paths.
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(work: () => Promise<T>): Promise<T> {
  const next = queue.then(work, work);
  queue = next.catch(() => undefined);
  return next;
}

/** Adds paths to the buffer (deduplicated, capped) and returns the buffer as written. */
export function appendDocChanges(config: Pick<AppConfig, 'logsDir'>, paths: string[], now: Date): Promise<DocChangeBuffer> {
  return serialized(async () => {
    const buffer = await readDocChangeBuffer(config);
    const seen = new Set(buffer.pending);
    for (const path of paths) {
      if (seen.size >= DOC_CHANGE_BUFFER_CAP) break;
      if (!seen.has(path)) {
        seen.add(path);
        buffer.pending.push(path);
      }
    }
    const updated = { pending: buffer.pending, updatedAt: now.toISOString() };
    await writeJsonAtomic(docChangeBufferPath(config), updated);
    return updated;
  });
}

/** Removes paths a drift-repair has taken over; paths that changed since stay pending. */
export function drainDocChanges(config: Pick<AppConfig, 'logsDir'>, taken: string[], now: Date): Promise<DocChangeBuffer> {
  return serialized(async () => {
    const buffer = await readDocChangeBuffer(config);
    const drop = new Set(taken);
    const updated = { pending: buffer.pending.filter((p) => !drop.has(p)), updatedAt: now.toISOString() };
    await writeJsonAtomic(docChangeBufferPath(config), updated);
    return updated;
  });
}
