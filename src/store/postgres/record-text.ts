/**
 * A batch's JSON records sent as one text, joined by the ASCII record separator and split in
 * SQL, instead of a `text[]` parameter. A JSON text never holds a raw control character (JSON
 * escapes them inside strings), so the separator cannot occur in a record. As a `text[]` every
 * record was escaped by the driver for the array literal (each quote and backslash, with two
 * regular-expression replaces that copied the record twice) and parsed back by the server's
 * `array_in`.
 */

const RECORD_SEPARATOR = '\u001e';

/** The records as the one text `splitRecords` takes apart. */
export function joinRecords(texts: readonly string[]): string {
  return texts.join(RECORD_SEPARATOR);
}

/** SQL: the `text[]` of the records joined in the parameter `param` (for example `$2`). */
export function splitRecords(param: string): string {
  return `string_to_array(${param}::text, chr(30))`;
}
