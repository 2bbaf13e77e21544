import type Database from 'better-sqlite3';
import type { AppendCollection, AppendRecord } from '../types.js';
import { MILESTONES, TELEMETRY, insertItems, readItems, type ItemTable } from './item-tables.js';
import { rowCountName } from './schema.js';
import { statement } from './statements.js';

const APPEND_TABLES: Record<AppendCollection, ItemTable<Record<string, unknown>>> = {
  telemetry: TELEMETRY,
  milestones: MILESTONES,
};

function tableFor(collection: AppendCollection): ItemTable<Record<string, unknown>> {
  const table = APPEND_TABLES[collection];
  if (table === undefined) throw new Error(`unknown append collection ${String(collection)}`);
  return table;
}

/** Rows of an append table, as the layout's triggers count them. */
export function appendedRows(db: Database.Database, table: Pick<ItemTable<unknown>, 'name'>): number {
  return (statement(db, 'SELECT value FROM counters WHERE name = ?').get(rowCountName(table.name)) as { value: number }).value;
}

/**
 * Appends records in order and drops all but the newest `keep`; call inside the batch
 * transaction. The count comes from `counters`, so the trim deletes the few oldest rows by the id
 * index instead of walking `keep` rows to find the cut; records appended together are trimmed
 * together, with one count and one delete.
 */
export function appendRecords(
  db: Database.Database,
  collection: AppendCollection,
  records: readonly Record<string, unknown>[],
  keep: number,
): void {
  const table = tableFor(collection);
  insertItems(db, table, records);
  const excess = appendedRows(db, table) - Math.max(0, keep);
  if (excess > 0) {
    statement(db, `DELETE FROM ${table.name} WHERE id IN (SELECT id FROM ${table.name} ORDER BY id LIMIT ?)`).run(excess);
  }
}

/**
 * Consecutive appends to the same collection with the same `keep`, each group in one piece, in
 * the order given (an admission's two telemetry records become one group).
 */
export function groupAppends(appends: readonly AppendRecord[]): Array<{ collection: AppendCollection; keep: number; records: Record<string, unknown>[] }> {
  const groups: Array<{ collection: AppendCollection; keep: number; records: Record<string, unknown>[] }> = [];
  for (const { collection, record, keep } of appends) {
    const last = groups.at(-1);
    if (last !== undefined && last.collection === collection && last.keep === keep) last.records.push(record);
    else groups.push({ collection, keep, records: [record] });
  }
  return groups;
}

export function listAppended(
  db: Database.Database,
  collection: AppendCollection,
  query: { limit: number; offset?: number },
): { items: Record<string, unknown>[]; total: number } {
  const table = tableFor(collection);
  const items = readItems(db, table, {
    newestFirst: true,
    limit: Math.max(0, Math.floor(query.limit)),
    offset: Math.max(0, Math.floor(query.offset ?? 0)),
  });
  return { items, total: appendedRows(db, table) };
}
