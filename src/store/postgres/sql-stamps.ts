import type { RunRecord } from '../../domain/run-record.js';

/**
 * Event stamps written by the statement that stores a record, for writes that are one statement
 * on their own (no earlier statement of the transaction to ask its id). The service stamps the
 * new events with `PENDING_TX`; the statement replaces that stamp in the record's text with its
 * transaction's id and returns the id, and the service then stamps its copy alike.
 */

/** No transaction id is negative. */
export const PENDING_TX = Number.MIN_SAFE_INTEGER;
/** The stamp as it stands in a record's JSON text (`JSON.stringify` writes no spaces). */
const PENDING_STAMP = `"tx":${PENDING_TX}`;

/** How often `text` holds `part`. */
function occurrences(text: string, part: string): number {
  let count = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) count++;
  return count;
}

/** Whether the pending stamp occurs in `doc` exactly as the new events' stamps (a payload could hold its text too). */
export function stampableInSql(run: RunRecord, doc: string): boolean {
  return occurrences(doc, PENDING_STAMP) === run.events.filter((event) => event.tx === PENDING_TX).length;
}

/** SQL: the record text `doc` as `jsonb`, its pending stamps replaced by the transaction id `tx` (text). */
export function stampedDoc(doc: string, tx: string): string {
  return `replace(${doc}, '${PENDING_STAMP}', '"tx":' || ${tx})::jsonb`;
}

/**
 * A new run's number as its record's text holds it until the inserting statement draws the
 * number from `run_seq`: the text is then replaced before its one conversion to `jsonb`
 * (`jsonb_set` on the converted record rebuilt the whole value, about a seventh of the
 * database's CPU per admission). No run is numbered below 1.
 */
export const PENDING_SEQ = Number.MIN_SAFE_INTEGER + 1;
const PENDING_SEQ_TEXT = `"seq":${PENDING_SEQ}`;

/** Whether `doc` holds the pending number once (a payload could hold its text too). */
export function numberableInSql(doc: string): boolean {
  return occurrences(doc, PENDING_SEQ_TEXT) === 1;
}

/** SQL: `stampedDoc` with the pending number also replaced by `seq` (a bigint). */
export function stampedNumberedDoc(doc: string, tx: string, seq: string): string {
  return `replace(replace(${doc}, '${PENDING_STAMP}', '"tx":' || ${tx}), '${PENDING_SEQ_TEXT}', '"seq":' || ${seq})::jsonb`;
}

/** SQL: the transaction id `tx` as the row's `last_tx` when `doc` appends events, else null. */
export function stampOf(doc: string, tx: string): string {
  return `CASE WHEN strpos(${doc}, '${PENDING_STAMP}') > 0 THEN ${tx}::bigint END`;
}

/** `run` with its pending stamps replaced by `tx`, as the statement stored it. */
export function stampedAs(run: RunRecord, tx: number): RunRecord {
  return { ...run, events: run.events.map((event) => (event.tx === PENDING_TX ? { ...event, tx } : event)) };
}
