/** One extracted record: column name → the source's value, unchanged apart from decoding. */
export type ExtractedRecord = Record<string, unknown>;

/** A part of the source that could not become a record, and why. */
export interface Reject {
  /** 1-based line of the source where the rejected unit starts (text-based formats). */
  line?: number;
  /** 0-based position in the source array (JSON). */
  index?: number;
  reason: string;
  /** The rejected source text, cut to RAW_LIMIT characters. */
  raw: string;
}

/** What a format parser finds: the columns in first-seen order, the records and the rejects. */
export interface ParsedSource {
  columns: string[];
  records: ExtractedRecord[];
  rejects: Reject[];
  /** Tables in the source when the format holds several (HTML, Markdown); only the first is read. */
  tablesFound?: number;
}

/** A parser that finds nothing it can read at all (no table, JSON that does not parse) says why. */
export type ParseOutcome = ParsedSource | { problem: string };

export const RAW_LIMIT = 200;

/** Cuts rejected source text so one huge bad row cannot swell the result. */
export function truncateRaw(raw: string): string {
  return raw.length <= RAW_LIMIT ? raw : `${raw.slice(0, RAW_LIMIT)}…`;
}

/**
 * Header names as columns: trimmed; an empty name becomes `column_<n>` (1-based position) and a
 * repeated name gets `_2`, `_3`… so that no column silently overwrites another in a record.
 */
export function uniqueColumns(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((name, i) => {
    const base = name.trim() === '' ? `column_${i + 1}` : name.trim();
    let column = base;
    for (let n = 2; seen.has(column); n += 1) column = `${base}_${n}`;
    seen.add(column);
    return column;
  });
}

/** Zips a row of cells with the columns; callers check the counts match first. */
export function recordOf(columns: string[], cells: string[]): ExtractedRecord {
  const record: ExtractedRecord = {};
  columns.forEach((column, i) => {
    record[column] = cells[i] ?? '';
  });
  return record;
}

/** "expected 3 fields, found 4" */
export function countMismatch(expected: number, found: number, unit: string): string {
  return `expected ${expected} ${unit}s, found ${found}`;
}
