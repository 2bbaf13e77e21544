import type Database from 'better-sqlite3';
import { ProgrammingError } from '../../domain/errors.js';
import type { AppendCollection, AppendRecord } from '../types.js';
import { MILESTONES, TELEMETRY, insertItems, readItems, type ItemTable } from './item-tables.js';
import { rowCountName } from './schema.js';
import { statement } from './statements.js';
import type { WriteContext } from './write-context.js';

const APPEND_TABLES: Record<AppendCollection, ItemTable<Record<string, unknown>>> = {
  telemetry: TELEMETRY,
  milestones: MILESTONES,
};

function tableFor(collection: AppendCollection): ItemTable<Record<string, unknown>> {
  const table = APPEND_TABLES[collection];
  if (table === undefined) throw new ProgrammingError(`unknown append collection ${String(collection)}`);
  return table;
}

/** Rows of an append table, as the layout's triggers count them. */
export function appendedRows(db: Database.Database, table: Pick<ItemTable<unknown>, 'name'>): number {
  return (statement(db, 'SELECT value FROM counters WHERE name = ?').get(rowCountName(table.name)) as { value: number }).value;
}

/**
 * Appends records in order and drops all but the newest `keep`, as statements of the write's
 * batch. The count comes from `counters` (kept by the layout's triggers), so the trim walks only
 * the few oldest rows it deletes, by the id index, instead of `keep` rows to find the cut; records
 * appended together are trimmed together, with one delete.
 */
export function appendRecords(
  ctx: Pick<WriteContext, 'run'>,
  collection: AppendCollection,
  records: readonly Record<string, unknown>[],
  keep: number,
): void {
  const table = tableFor(collection);
  insertItems(ctx, table, records);
  // Everything older than the row `excess` places from the oldest goes: nothing when excess <= 0
  // (no id is older than the oldest), every row when there is no such row (keep 0). A range
  // delete: an IN list of the ids built a temporary table.
  ctx.run(
    `DELETE FROM ${table.name} WHERE id < ifnull((
       SELECT id FROM ${table.name} ORDER BY id
       LIMIT 1 OFFSET max(0, (SELECT value FROM counters WHERE name = ?) - ?)
     ), 9223372036854775807)`,
    [rowCountName(table.name), Math.max(0, keep)],
  );
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
