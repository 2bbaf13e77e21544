import { truncateRaw, type ExtractedRecord, type ParseOutcome, type Reject } from './table.js';

/** `Key: value`: the key runs to the first colon that is followed by a space or the line's end, so "http://…" and "12:30" are not keys. */
const KEY_VALUE = /^([^:\s][^:]*?)\s*:(?:[ \t]+(.*)|[ \t]*)$/;

/**
 * Plain text of `key: value` lines; a blank line ends a record. A line indented under a key
 * continues its value (joined with a space). A line that is not `key: value`, or repeats a key
 * already in its record, is rejected with its line number; the record keeps its other lines.
 */
export function parseKeyValueText(text: string): ParseOutcome {
  const columns: string[] = [];
  const seen = new Set<string>();
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  let record: ExtractedRecord | null = null;
  let lastKey: string | null = null;

  const finish = () => {
    if (record && Object.keys(record).length > 0) records.push(record);
    record = null;
    lastKey = null;
  };

  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1;
    if (raw.trim() === '') {
      finish();
      return;
    }
    if (/^[ \t]/.test(raw) && record && lastKey !== null) {
      const current = record[lastKey] as string;
      record[lastKey] = current === '' ? raw.trim() : `${current} ${raw.trim()}`;
      return;
    }
    const match = KEY_VALUE.exec(raw.trim());
    if (!match) {
      rejects.push({ line, reason: 'not a "key: value" line', raw: truncateRaw(raw) });
      lastKey = null;
      return;
    }
    const key = match[1]!;
    const value = (match[2] ?? '').trim();
    record ??= {};
    if (Object.hasOwn(record, key)) {
      rejects.push({ line, reason: `key "${key}" repeats within its record; the first value is kept`, raw: truncateRaw(raw) });
      lastKey = null;
      return;
    }
    record[key] = value;
    lastKey = key;
    if (!seen.has(key)) {
      seen.add(key);
      columns.push(key);
    }
  });
  finish();
  return { columns, records, rejects };
}
