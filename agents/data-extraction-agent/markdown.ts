import { countMismatch, recordOf, truncateRaw, uniqueColumns, type ExtractedRecord, type ParseOutcome, type Reject } from './table.js';

/** `| --- | :---: | ---: |`, with or without the outer pipes. */
const SEPARATOR_CELL = /^:?-{1,}:?$/;

/**
 * The cells of one pipe-table line: the outer pipes are optional, `\|` is a literal pipe, and
 * cells are trimmed. (As in GitHub Flavored Markdown, a pipe inside a code span still splits
 * unless escaped.)
 */
export function splitPipeRow(line: string): string[] {
  let body = line.trim();
  if (body.startsWith('|')) body = body.slice(1);
  if (body.endsWith('|') && !body.endsWith('\\|')) body = body.slice(0, -1);
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < body.length; i += 1) {
    const ch = body[i]!;
    if (ch === '\\' && body[i + 1] === '|') {
      cell += '|';
      i += 1;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

function isSeparatorRow(line: string): boolean {
  if (!line.includes('-')) return false;
  const cells = splitPipeRow(line);
  return cells.every((cell) => SEPARATOR_CELL.test(cell));
}

function isHeaderCandidate(line: string): boolean {
  return line.includes('|') && line.trim() !== '';
}

/**
 * The first Markdown pipe table: a header line, a separator line with as many cells, then the
 * rows up to the first blank line or line without a pipe. A row with a different number of
 * cells is rejected with its line number rather than padded or cut, so no value lands under
 * the wrong column unseen. Cell text is kept as written (inline Markdown included).
 */
export function parseMarkdownTable(text: string): ParseOutcome {
  const lines = text.split(/\r?\n/);
  let tablesFound = 0;
  let table: { header: number; end: number } | null = null;
  for (let i = 0; i + 1 < lines.length; i += 1) {
    const header = lines[i]!;
    const separator = lines[i + 1]!;
    if (!isHeaderCandidate(header) || !isSeparatorRow(separator)) continue;
    if (splitPipeRow(header).length !== splitPipeRow(separator).length) continue;
    let end = i + 2;
    while (end < lines.length && lines[end]!.trim() !== '' && lines[end]!.includes('|')) end += 1;
    tablesFound += 1;
    table ??= { header: i, end };
    i = end - 1;
  }
  if (!table) return { problem: 'the Markdown has no pipe table (a header row followed by a | --- | separator row)' };
  const columns = uniqueColumns(splitPipeRow(lines[table.header]!));
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  for (let i = table.header + 2; i < table.end; i += 1) {
    const raw = lines[i]!;
    const cells = splitPipeRow(raw);
    if (cells.length !== columns.length) {
      rejects.push({ line: i + 1, reason: countMismatch(columns.length, cells.length, 'cell'), raw: truncateRaw(raw) });
    } else records.push(recordOf(columns, cells));
  }
  return { columns, records, rejects, tablesFound };
}
