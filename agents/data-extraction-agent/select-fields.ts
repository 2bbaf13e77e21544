import type { ExtractedRecord } from './table.js';

/** One requested field: the column it reads and the name it gets in the records. */
interface FieldRequest {
  column: string;
  name: string;
  requested: string;
}

export interface FieldSelection {
  records: ExtractedRecord[];
  columns: string[];
  /** Requested fields that name no column of the source. */
  missing: string[];
}

/** `"Email Address as email"` renames; the last " as " splits, so a column may itself contain one. */
const RENAME = /^(.+)\s+as\s+(\S(?:.*\S)?)$/i;

/**
 * Finds the column a request names: the exact name first, then the only column equal to it
 * ignoring case and surrounding spaces ("email" finds "Email").
 */
function findColumn(columns: string[], wanted: string): string | null {
  if (columns.includes(wanted)) return wanted;
  const folded = wanted.trim().toLowerCase();
  const matches = columns.filter((column) => column.trim().toLowerCase() === folded);
  return matches.length === 1 ? matches[0]! : null;
}

function resolveRequest(columns: string[], requested: string): FieldRequest | null {
  const direct = findColumn(columns, requested);
  if (direct !== null) return { column: direct, name: requested.trim(), requested };
  const rename = RENAME.exec(requested.trim());
  if (rename) {
    const column = findColumn(columns, rename[1]!);
    if (column !== null) return { column, name: rename[2]!, requested };
  }
  return null;
}

/**
 * Keeps only the requested fields, in the order requested, renaming `"<column> as <name>"`.
 * A record without a requested field (JSON, text) simply lacks it: nothing is invented.
 */
export function selectFields(records: ExtractedRecord[], columns: string[], fields: string[]): FieldSelection {
  const requests: FieldRequest[] = [];
  const missing: string[] = [];
  for (const requested of fields) {
    const request = resolveRequest(columns, requested);
    if (request === null) missing.push(requested);
    else if (!requests.some((r) => r.name === request.name)) requests.push(request);
  }
  const selected = records.map((record) => {
    const out: ExtractedRecord = {};
    for (const request of requests) {
      if (Object.hasOwn(record, request.column)) out[request.name] = record[request.column];
    }
    return out;
  });
  return { records: selected, columns: requests.map((r) => r.name), missing };
}
