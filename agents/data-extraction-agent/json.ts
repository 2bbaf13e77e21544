import { truncateRaw, type ExtractedRecord, type ParseOutcome, type Reject } from './table.js';

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function compactJson(value: unknown): string {
  return truncateRaw(JSON.stringify(value) ?? String(value));
}

/** Adds a record's keys to the column list in first-seen order. */
function collectColumns(columns: string[], seen: Set<string>, record: ExtractedRecord): void {
  for (const key of Object.keys(record)) {
    if (!seen.has(key)) {
      seen.add(key);
      columns.push(key);
    }
  }
}

/**
 * The array that holds the records: the document itself, or the one array property of a
 * wrapping object (`{"data": [...]}`). When a wrapper has several arrays, the only one whose
 * elements are all objects is taken; anything less clear is refused rather than guessed.
 */
function recordArray(document: unknown): { items: unknown[]; property: string | null } | { problem: string } {
  if (Array.isArray(document)) return { items: document, property: null };
  if (!isPlainObject(document)) return { problem: `the JSON document is ${kindOf(document)}, not an array of objects or an object holding one` };
  const arrays = Object.entries(document).filter(([, value]) => Array.isArray(value)) as Array<[string, unknown[]]>;
  if (arrays.length === 1) return { items: arrays[0]![1], property: arrays[0]![0] };
  if (arrays.length === 0) return { problem: 'the JSON object has no array property to read records from' };
  const ofObjects = arrays.filter(([, items]) => items.length > 0 && items.every(isPlainObject));
  if (ofObjects.length === 1) return { items: ofObjects[0]![1], property: ofObjects[0]![0] };
  return {
    problem: `the JSON object has several array properties (${arrays.map(([name]) => name).join(', ')}); extract from a document holding one`,
  };
}

/**
 * A JSON array of objects, or an object with one array property. Elements that are not objects
 * are rejected with their 0-based index in that array. Values keep their JSON types.
 */
export function parseJson(text: string): ParseOutcome & { property?: string | null } {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    return { problem: `the JSON does not parse: ${(err as Error).message}` };
  }
  const found = recordArray(document);
  if ('problem' in found) return found;
  const columns: string[] = [];
  const seen = new Set<string>();
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  found.items.forEach((item, index) => {
    if (!isPlainObject(item)) {
      rejects.push({ index, reason: `element is ${kindOf(item)}, not an object`, raw: compactJson(item) });
      return;
    }
    collectColumns(columns, seen, item);
    records.push(item);
  });
  return { columns, records, rejects, property: found.property };
}

/**
 * JSON Lines: one object per line. A line that does not parse, or holds something other than an
 * object, is rejected with its 1-based line number; blank lines are skipped.
 */
export function parseJsonLines(text: string): ParseOutcome {
  const columns: string[] = [];
  const seen = new Set<string>();
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    if (raw.trim() === '') return;
    const line = i + 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      rejects.push({ line, reason: `not valid JSON: ${(err as Error).message}`, raw: truncateRaw(raw) });
      return;
    }
    if (!isPlainObject(value)) {
      rejects.push({ line, reason: `line holds ${kindOf(value)}, not an object`, raw: truncateRaw(raw) });
      return;
    }
    collectColumns(columns, seen, value);
    records.push(value);
  });
  return { columns, records, rejects };
}
