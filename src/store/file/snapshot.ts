import { dirname } from 'node:path';
import type { DomainError } from '../../domain/errors.js';
import type { RunRecord } from '../../domain/run-record.js';
import type { OrchestratorState } from '../../domain/orchestrator-state.js';
import { isErrnoCode } from '../durable-fs.js';
import { nodeStoreFs, type StoreFs } from '../store-fs.js';
import { stateCorrupt, type AppendCollection } from '../types.js';
import { APPEND_COLLECTIONS } from './journal-entry.js';
import { isPlainObject, pickState, runProblem, stateProblem } from '../record-checks.js';

/** Version of the snapshot document layout below; a newer file is refused rather than misread. */
export const SNAPSHOT_SCHEMA_VERSION = 1;

/**
 * The state file itself: the OrchestratorState fields at the top level (so the file still reads
 * as the familiar state document), plus the runs, the append-only collections, keyed documents,
 * and `meta.lastSeq`, the last journal seq folded into it.
 */
export interface SnapshotDocument extends OrchestratorState {
  runs: RunRecord[];
  collections: Record<AppendCollection, Record<string, unknown>[]>;
  docs: Record<string, Record<string, Record<string, unknown>>>;
  meta: { schemaVersion: number; lastSeq: number };
}

/**
 * A snapshot captured from the model, to be written: the document, plus for each of its runs
 * (same index) the JSON text already made for it when it was written, if the model kept one.
 */
export interface SnapshotCapture {
  document: SnapshotDocument;
  runTexts: ReadonlyArray<string | undefined>;
}

/** Every file the file driver owns, all derived from the state path. */
export interface FileStorePaths {
  snapshot: string;
  journal: string;
  /** The journal segment a running compaction's snapshot covers (see docs/persistence.md). */
  sealedJournal: string;
  tmp: string;
  prev: string;
  lock: string;
}

export function fileStorePaths(snapshot: string): FileStorePaths {
  return {
    snapshot,
    journal: `${snapshot}.journal`,
    sealedJournal: `${snapshot}.journal.sealed`,
    tmp: `${snapshot}.tmp`,
    prev: `${snapshot}.prev`,
    lock: `${snapshot}.lock`,
  };
}

export interface SnapshotRead {
  document: SnapshotDocument;
  /** Written in the earlier layout: the caller rewrites it in the current one. */
  legacy: boolean;
  /** Size of the file read, in bytes. */
  bytes: number;
}

/** Records a snapshot holds (runs, appended records, keyed documents): the unit journal lines change. */
export function snapshotRecords(document: SnapshotDocument): number {
  let records = document.runs.length + document.collections.telemetry.length + document.collections.milestones.length;
  for (const byId of Object.values(document.docs)) records += Object.keys(byId).length;
  return records;
}

/**
 * Reads and checks the snapshot. Null when there is none yet (fresh state). Anything unreadable
 * throws a `state_corrupt` error without touching a file: resetting silently would drop admitted runs.
 */
export async function readSnapshot(paths: FileStorePaths, fs: StoreFs = nodeStoreFs): Promise<SnapshotRead | null> {
  let raw: Buffer;
  try {
    raw = await fs.readFile(paths.snapshot);
  } catch (err) {
    if (!isErrnoCode(err, 'ENOENT')) throw err;
    if (await fs.exists(paths.prev)) {
      // A previous copy without a current one never results from our own writes: someone removed it.
      throw await corruptSnapshot(fs, paths, 'is missing although an older copy exists');
    }
    return null;
  }
  const text = raw.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw await corruptSnapshot(fs, paths, `is not valid JSON (${(err as Error).message})`);
  }
  const legacy = isPlainObject(value) && value.meta === undefined && value.runs === undefined;
  const checked = legacy ? fromLegacyDocument(value as Record<string, unknown>) : toSnapshotDocument(value);
  if (typeof checked === 'string') throw await corruptSnapshot(fs, paths, `is not a state document: ${checked}`);
  return { document: checked, legacy, bytes: raw.length };
}

/** The checked document, or the reason it is not one. */
function toSnapshotDocument(value: unknown): SnapshotDocument | string {
  if (!isPlainObject(value)) return 'the top level is not an object';
  const meta = value.meta;
  if (!isPlainObject(meta)) return 'meta is not an object';
  if (meta.schemaVersion !== SNAPSHOT_SCHEMA_VERSION) {
    return `meta.schemaVersion is ${JSON.stringify(meta.schemaVersion)}, this build reads ${SNAPSHOT_SCHEMA_VERSION}`;
  }
  if (!Number.isSafeInteger(meta.lastSeq) || (meta.lastSeq as number) < 0) return 'meta.lastSeq is not a whole number';
  const stateIssue = stateProblem(value, '', true);
  if (stateIssue !== null) return stateIssue;
  const runsIssue = runsProblem(value.runs);
  if (runsIssue !== null) return runsIssue;
  const collections = collectionsOf(value.collections);
  if (typeof collections === 'string') return collections;
  const docs = docsOf(value.docs);
  if (typeof docs === 'string') return docs;
  return {
    ...pickState(value),
    runs: value.runs as RunRecord[],
    collections,
    docs,
    meta: { schemaVersion: SNAPSHOT_SCHEMA_VERSION, lastSeq: meta.lastSeq as number },
  };
}

/**
 * A state file of the earlier layout holds only the OrchestratorState document. It is read as
 * is (no runs yet); the store rewrites it in the current layout right after opening, the old
 * bytes staying behind as `.prev`.
 */
function fromLegacyDocument(value: Record<string, unknown>): SnapshotDocument | string {
  if (value.tasksProcessed === undefined && value.taskHistory === undefined && value.lastStartedAt === undefined) {
    return 'it has neither meta nor any OrchestratorState field';
  }
  const issue = stateProblem(value, '', false);
  if (issue !== null) return issue;
  return {
    ...pickState(value),
    runs: [],
    collections: { telemetry: [], milestones: [] },
    docs: {},
    meta: { schemaVersion: SNAPSHOT_SCHEMA_VERSION, lastSeq: 0 },
  };
}

function runsProblem(runs: unknown): string | null {
  if (!Array.isArray(runs)) return 'runs is not an array';
  const ids = new Set<string>();
  const seqs = new Set<number>();
  for (const [index, run] of runs.entries()) {
    const issue = runProblem(run, `runs[${index}]`);
    if (issue !== null) return issue;
    const { runId, seq } = run as RunRecord;
    if (ids.has(runId)) return `runs[${index}].runId ${runId} appears twice`;
    if (seqs.has(seq)) return `runs[${index}].seq ${seq} appears twice`;
    ids.add(runId);
    seqs.add(seq);
  }
  return null;
}

function collectionsOf(value: unknown): SnapshotDocument['collections'] | string {
  const collections: SnapshotDocument['collections'] = { telemetry: [], milestones: [] };
  if (value === undefined) return collections;
  if (!isPlainObject(value)) return 'collections is not an object';
  for (const name of APPEND_COLLECTIONS) {
    const items = value[name];
    if (items === undefined) continue;
    if (!Array.isArray(items) || !items.every(isPlainObject)) return `collections.${name} is not an array of objects`;
    collections[name] = items;
  }
  return collections;
}

function docsOf(value: unknown): SnapshotDocument['docs'] | string {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return 'docs is not an object';
  for (const [collection, byId] of Object.entries(value)) {
    if (!isPlainObject(byId) || !Object.values(byId).every(isPlainObject)) {
      return `docs.${collection} is not an object of documents`;
    }
  }
  return value as SnapshotDocument['docs'];
}

async function corruptSnapshot(fs: StoreFs, paths: FileStorePaths, reason: string): Promise<DomainError> {
  const prev = (await fs.exists(paths.prev))
    ? `The previous good copy is ${paths.prev}.`
    : `There is no previous copy (${paths.prev}).`;
  return stateCorrupt(
    `state file ${paths.snapshot} ${reason}. ${prev} No file was modified. Inspect or restore the state ` +
      `file before starting again (a restored older copy lacks the changes made after it; move ${paths.journal} ` +
      'aside as well in that case).',
  );
}

/**
 * Replaces the snapshot atomically: the new document goes to `.tmp` and is fsynced, the current
 * snapshot is kept as `.prev` (a hard link, so there is never a moment without a state file),
 * `.tmp` is renamed over the state path and the directory is fsynced. A crash at any step
 * leaves either the old or the new snapshot in place, each consistent with the journal.
 * Returns the snapshot's size in bytes.
 */
export async function writeSnapshot(paths: FileStorePaths, capture: SnapshotCapture, fs: StoreFs = nodeStoreFs): Promise<number> {
  const bytes = await writeInSyncedPieces(fs, paths.tmp, capture);
  await keepPreviousSnapshot(paths, fs);
  await fs.rename(paths.tmp, paths.snapshot);
  await fs.syncDirectory(dirname(paths.snapshot));
  return bytes;
}

/** Characters of snapshot gathered into one write, each followed by an fdatasync of `.tmp`. */
const SNAPSHOT_SLICE_CHARS = 1024 * 1024;

/** Runs serialized into one piece (about a megabyte), written before the next is made. */
const RUNS_PER_PIECE = 500;

/**
 * Serializes a captured snapshot document and writes it to `.tmp` piece by piece: the head (every
 * part but the runs), then the runs 500 at a time, each from the text the capture kept for it
 * when there is one. The document must be a frozen capture (records are deep-frozen, arrays
 * copied), so it does not change while the writes yield to the event loop, and group commits go
 * on meanwhile. The file parses to the same document as `JSON.stringify(document)`.
 *
 * No text of the whole snapshot is ever built: joining and flattening one string of tens of
 * megabytes blocked the event loop for tens of milliseconds at a time, and its garbage cost
 * more, which showed as stalls of every write acknowledged during a compaction.
 *
 * An fdatasync follows every megabyte written and an fsync the last piece: one large write
 * followed by one fsync makes the disk flush the whole snapshot at once, and the journal's
 * fdatasyncs (the writes being acknowledged meanwhile) queue behind that flush; syncing as it
 * goes keeps each of those waits to about a megabyte's worth.
 */
async function writeInSyncedPieces(fs: StoreFs, path: string, { document, runTexts }: SnapshotCapture): Promise<number> {
  const { runs, ...rest } = document;
  const handle = await fs.open(path, 'w');
  let bytes = 0;
  // `rest` always holds meta, so the head is a non-empty object: the runs go in as its last key.
  let pending = `${JSON.stringify(rest).slice(0, -1)},"runs":[`;
  const flush = async (last: boolean): Promise<void> => {
    await handle.write(pending);
    bytes += Buffer.byteLength(pending);
    pending = '';
    if (!last) await handle.datasync();
  };
  try {
    for (let start = 0; start < runs.length; start += RUNS_PER_PIECE) {
      const end = Math.min(runs.length, start + RUNS_PER_PIECE);
      const texts: string[] = [];
      for (let i = start; i < end; i++) texts.push(runTexts[i] ?? JSON.stringify(runs[i]));
      const piece = texts.join(',');
      pending += start === 0 ? piece : `,${piece}`;
      if (pending.length >= SNAPSHOT_SLICE_CHARS) await flush(false);
    }
    pending += ']}';
    await flush(true);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return bytes;
}

async function keepPreviousSnapshot(paths: FileStorePaths, fs: StoreFs): Promise<void> {
  await fs.remove(paths.prev);
  try {
    await fs.link(paths.snapshot, paths.prev);
  } catch (err) {
    if (isErrnoCode(err, 'ENOENT')) return; // first snapshot: nothing to keep
    // File systems without hard links get a copy instead.
    if (isErrnoCode(err, 'EPERM', 'EXDEV', 'ENOTSUP', 'EOPNOTSUPP', 'EMLINK')) {
      await fs.copyFile(paths.snapshot, paths.prev);
      return;
    }
    throw err;
  }
}

/** Removes a `.tmp` left by a compaction that crashed before its rename. */
export async function removeLeftoverTmp(paths: FileStorePaths, fs: StoreFs = nodeStoreFs): Promise<void> {
  await fs.remove(paths.tmp);
}
