import { countMismatch, recordOf, truncateRaw, uniqueColumns, type ExtractedRecord, type ParseOutcome, type Reject } from './table.js';

/** One CSV record as the source wrote it: its cells, where it starts and what went wrong. */
interface CsvRow {
  cells: string[];
  line: number;
  raw: string;
  problem: string | null;
}

/**
 * Splits CSV text into rows per RFC 4180: fields separated by commas, records by CRLF (LF and a
 * lone CR are accepted too), a field in double quotes may hold commas, line breaks and `""` for
 * a quote. A quote inside an unquoted field is kept as a character; text after a closing quote
 * or a quote never closed marks the row as malformed instead of guessing what was meant.
 * Blank lines between records are skipped.
 */
export function splitCsvRows(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let line = 1;
  let i = 0;
  while (i < text.length) {
    const startLine = line;
    const start = i;
    const cells: string[] = [];
    let problem: string | null = null;
    let cell = '';
    let endOfRecord = false;
    while (!endOfRecord) {
      if (text[i] === '"') {
        // Quoted field: runs to the next quote that is not doubled.
        i += 1;
        let closed = false;
        while (i < text.length) {
          const ch = text[i]!;
          if (ch === '"') {
            if (text[i + 1] === '"') {
              cell += '"';
              i += 2;
              continue;
            }
            closed = true;
            i += 1;
            break;
          }
          if (ch === '\n' || (ch === '\r' && text[i + 1] !== '\n')) line += 1;
          cell += ch;
          i += 1;
        }
        if (!closed) problem ??= `quoted field opened on line ${startLine} is never closed`;
        // Anything between the closing quote and the next separator is malformed.
        let stray = '';
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') stray += text[i++];
        if (stray !== '') problem ??= `unexpected text ${JSON.stringify(truncateRaw(stray))} after a closing quote`;
      } else {
        while (i < text.length && text[i] !== ',' && text[i] !== '\n' && text[i] !== '\r') cell += text[i++];
      }
      cells.push(cell);
      cell = '';
      if (text[i] === ',') {
        i += 1;
        continue;
      }
      endOfRecord = true;
    }
    const raw = text.slice(start, i);
    if (text[i] === '\r' && text[i + 1] === '\n') i += 2;
    else if (i < text.length) i += 1;
    line += 1;
    const blank = cells.length === 1 && cells[0] === '' && problem === null && raw === '';
    if (!blank) rows.push({ cells, line: startLine, raw, problem });
  }
  return rows;
}

/**
 * CSV with a header row. The first record names the columns; every later record must have as
 * many fields, or it is rejected with its starting line number. Values are kept verbatim
 * (no trimming, no typing): cleaning them is the normalization lane's job.
 */
export function parseCsv(text: string): ParseOutcome {
  const rows = splitCsvRows(text);
  const header = rows[0];
  if (!header) return { problem: 'the CSV has no header row' };
  if (header.problem !== null) return { problem: `the CSV header row (line ${header.line}) is malformed: ${header.problem}` };
  const columns = uniqueColumns(header.cells);
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  for (const row of rows.slice(1)) {
    if (row.problem !== null) rejects.push({ line: row.line, reason: row.problem, raw: truncateRaw(row.raw) });
    else if (row.cells.length !== columns.length) {
      rejects.push({ line: row.line, reason: countMismatch(columns.length, row.cells.length, 'field'), raw: truncateRaw(row.raw) });
    } else records.push(recordOf(columns, row.cells));
  }
  return { columns, records, rejects };
}
