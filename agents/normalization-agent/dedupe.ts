/** A record removed as a repeat of an earlier one. */
export interface Duplicate {
  /** Position of the removed record in the payload's records. */
  index: number;
  /** Position of the first record with the same key, which is kept. */
  duplicateOf: number;
  key: Record<string, unknown>;
}

/**
 * Keeps the first record of each key (the values of `fields`, compared after normalization,
 * so "Ada@Example.com" and "ada@example.com" are one key). A record missing any key value is
 * always kept: two records without an email are not known to be the same person.
 */
export function dedupe<E extends { index: number; record: Record<string, unknown> }>(
  entries: E[],
  fields: string[],
): { kept: E[]; duplicates: Duplicate[] } {
  const firstByKey = new Map<string, number>();
  const kept: E[] = [];
  const duplicates: Duplicate[] = [];
  for (const entry of entries) {
    const values = fields.map((field) => entry.record[field]);
    if (values.some((value) => value === undefined || value === null)) {
      kept.push(entry);
      continue;
    }
    const key = JSON.stringify(values);
    const first = firstByKey.get(key);
    if (first === undefined) {
      firstByKey.set(key, entry.index);
      kept.push(entry);
    } else {
      duplicates.push({ index: entry.index, duplicateOf: first, key: Object.fromEntries(fields.map((f, i) => [f, values[i]])) });
    }
  }
  return { kept, duplicates };
}
