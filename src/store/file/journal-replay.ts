import { isErrnoCode } from '../durable-fs.js';
import { nodeStoreFs, withOpenFile, type StoreFs } from '../store-fs.js';
import { stateCorrupt } from '../types.js';
import { parseJournalLine, type JournalEntry } from './journal-entry.js';

export interface JournalReplay {
  /** Entries newer than the snapshot, in seq order: these are applied on top of it. */
  entries: JournalEntry[];
  /** Well-formed lines in the file, including ones the snapshot already covers. */
  lineCount: number;
  /** Length of the well-formed prefix; everything after it is a torn tail. */
  validBytes: number;
  tornBytes: number;
}

const NEWLINE = 0x0a;

/**
 * Reads `<state>.journal` for replay on top of a snapshot that covers seq `afterSeq`.
 *
 * A crash in the middle of an append leaves a torn tail: unterminated or unparsable lines after
 * the last good one. Those writes were never acknowledged (the fsync covering them had not
 * returned), so they are reported in `tornBytes` for the caller to cut off. A bad line followed
 * by good ones is not a torn write but damage to acknowledged data, and so is a gap in seq:
 * both raise a `state_corrupt` error (stateCorrupt).
 */
export async function readJournal(path: string, afterSeq: number, fs: StoreFs = nodeStoreFs): Promise<JournalReplay> {
  const { parsed, ...size } = await parseJournalFile(path, fs);
  return { entries: entriesAfter(path, parsed, afterSeq), ...size };
}

export interface SegmentsReplay extends JournalReplay {
  /** Whether a sealed segment (left by a compaction that had not finished) was found. */
  sealed: boolean;
}

/**
 * Reads the sealed segment (when a compaction was interrupted) followed by the active journal,
 * as one sequence of seqs, for replay on top of a snapshot covering `afterSeq`. The sealed
 * segment was fully fsynced before it was sealed, so a bad tail in it is damage, not a torn
 * write. `lineCount`, `validBytes` and `tornBytes` describe the active journal (the one that
 * gets cut and appended to).
 */
export async function readJournalSegments(
  paths: { sealed: string; active: string },
  afterSeq: number,
  fs: StoreFs = nodeStoreFs,
): Promise<SegmentsReplay> {
  const sealed = (await fs.exists(paths.sealed)) ? await parseJournalFile(paths.sealed, fs) : null;
  if (sealed !== null && sealed.tornBytes > 0) {
    throw stateCorrupt(
      `sealed state journal ${paths.sealed} ends in ${sealed.tornBytes} bytes that are not a complete entry, but it ` +
        'was fully synced before it was sealed. No file was modified; inspect it before starting again.',
    );
  }
  const active = await parseJournalFile(paths.active, fs);
  const parsed = sealed === null ? active.parsed : [...sealed.parsed, ...active.parsed];
  return {
    entries: entriesAfter(sealed === null ? paths.active : `${paths.sealed} + ${paths.active}`, parsed, afterSeq),
    lineCount: active.lineCount,
    validBytes: active.validBytes,
    tornBytes: active.tornBytes,
    sealed: sealed !== null,
  };
}

interface ParsedJournal {
  parsed: JournalEntry[];
  lineCount: number;
  validBytes: number;
  tornBytes: number;
}

async function parseJournalFile(path: string, fs: StoreFs): Promise<ParsedJournal> {
  let bytes: Buffer;
  try {
    bytes = await fs.readFile(path);
  } catch (err) {
    if (isErrnoCode(err, 'ENOENT')) return { parsed: [], lineCount: 0, validBytes: 0, tornBytes: 0 };
    throw err;
  }

  const parsed: JournalEntry[] = [];
  let validBytes = 0;
  let firstBad: { line: number; problem: string } | null = null;
  let lineNumber = 0;
  for (let start = 0; start < bytes.length; ) {
    lineNumber++;
    const newline = bytes.indexOf(NEWLINE, start);
    const end = newline === -1 ? bytes.length : newline + 1;
    const result =
      newline === -1
        ? { problem: 'unterminated (cut off mid-write)' }
        : parseJournalLine(bytes.toString('utf8', start, newline));
    if ('entry' in result) {
      if (firstBad !== null) {
        throw stateCorrupt(
          `state journal ${path} line ${firstBad.line} is corrupt (${firstBad.problem}) and is followed by ` +
            'valid entries, so it is not a torn final write. No file was modified; inspect the journal before starting again.',
        );
      }
      parsed.push(result.entry);
      validBytes = end;
    } else {
      firstBad ??= { line: lineNumber, problem: result.problem };
    }
    start = end;
  }

  return {
    parsed,
    lineCount: parsed.length,
    validBytes,
    tornBytes: bytes.length - validBytes,
  };
}

/**
 * Lines at or below `afterSeq` are already folded into the snapshot (a crash came between the
 * snapshot rename and the journal truncation or the sealed segment's removal) and are skipped. The rest must continue the
 * snapshot without a gap, otherwise acknowledged changes are missing.
 */
function entriesAfter(path: string, parsed: JournalEntry[], afterSeq: number): JournalEntry[] {
  let previous = 0;
  for (const entry of parsed) {
    if (entry.seq <= previous) {
      throw stateCorrupt(`state journal ${path} has seq ${entry.seq} after seq ${previous}; entries are out of order`);
    }
    previous = entry.seq;
  }
  const newer = parsed.filter((entry) => entry.seq > afterSeq);
  let expected = afterSeq + 1;
  for (const entry of newer) {
    if (entry.seq !== expected) {
      throw stateCorrupt(
        `state journal ${path} continues at seq ${entry.seq} but seq ${expected} is missing (the snapshot covers ` +
          `up to ${afterSeq}); was the state file replaced by an older copy? No file was modified. Move the journal ` +
          'aside to start from the state file alone.',
      );
    }
    expected++;
  }
  return newer;
}

/** Cuts a torn tail off the journal so new appends start on a clean line. */
export async function truncateJournal(path: string, length: number, fs: StoreFs = nodeStoreFs): Promise<void> {
  await withOpenFile(fs, path, 'r+', async (handle) => {
    await handle.truncate(length);
    await handle.datasync();
  });
}
