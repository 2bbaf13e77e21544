import type Database from 'better-sqlite3';
import type { AppendCollection } from '../types.js';
import { MILESTONES, TELEMETRY, countItems, insertItems, readItems, type ItemTable } from './item-tables.js';
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

/** Appends one record and drops all but the newest `keep`; call inside the batch transaction. */
export function appendRecord(
  db: Database.Database,
  collection: AppendCollection,
  record: Record<string, unknown>,
  keep: number,
): void {
  const table = tableFor(collection);
  insertItems(db, table, [record]);
  // Rows older than the keep-th newest; with fewer rows the subquery is NULL and nothing goes.
  statement(db, `DELETE FROM ${table.name} WHERE id <= (SELECT id FROM ${table.name} ORDER BY id DESC LIMIT 1 OFFSET ?)`).run(
    keep,
  );
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
  return { items, total: countItems(db, table) };
}
