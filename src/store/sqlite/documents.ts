import type Database from 'better-sqlite3';
import { isPlainObject } from '../record-checks.js';
import { stateCorrupt, type DocPage } from '../types.js';
import { statement } from './statements.js';
import type { ChangeCount, WriteContext } from './write-context.js';

export function putDoc(ctx: Pick<WriteContext, 'run'>, collection: string, id: string, doc: Record<string, unknown>): void {
  const text = JSON.stringify(doc);
  if (!isPlainObject(JSON.parse(text))) throw stateCorrupt(`refusing to store document ${collection}/${id}: not an object`);
  ctx.run('INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc', [
    collection,
    id,
    text,
  ]);
}

/** Creates the row when absent; the batch answers the statement's change count (1 when created). */
export function insertDoc(ctx: Pick<WriteContext, 'runCounted'>, collection: string, id: string, doc: Record<string, unknown>): ChangeCount {
  const text = JSON.stringify(doc);
  if (!isPlainObject(JSON.parse(text))) throw stateCorrupt(`refusing to store document ${collection}/${id}: not an object`);
  return ctx.runCounted('INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?) ON CONFLICT (collection, id) DO NOTHING', [collection, id, text]);
}

export function deleteDoc(ctx: Pick<WriteContext, 'run'>, collection: string, id: string): void {
  ctx.run('DELETE FROM documents WHERE collection = ? AND id = ?', [collection, id]);
}

export function getDoc(db: Database.Database, collection: string, id: string): Record<string, unknown> | null {
  const row = statement(db, 'SELECT doc FROM documents WHERE collection = ? AND id = ?').get(collection, id) as
    | { doc: string }
    | undefined;
  return row === undefined ? null : (JSON.parse(row.doc) as Record<string, unknown>);
}

/** Every document of a collection, ordered by id. */
export function listDocs(db: Database.Database, collection: string): Record<string, unknown>[] {
  const rows = statement(db, 'SELECT doc FROM documents WHERE collection = ? ORDER BY id').all(collection) as Array<{
    doc: string;
  }>;
  return rows.map((row) => JSON.parse(row.doc) as Record<string, unknown>);
}

export function listDocEntries(db: Database.Database, collection: string): Array<{ id: string; doc: Record<string, unknown> }> {
  const rows = statement(db, 'SELECT id, doc FROM documents WHERE collection = ? ORDER BY id').all(collection) as Array<{
    id: string;
    doc: string;
  }>;
  return rows.map((row) => ({ id: row.id, doc: JSON.parse(row.doc) as Record<string, unknown> }));
}

export function countDocsByCollection(db: Database.Database): Map<string, number> {
  const rows = statement(db, 'SELECT collection, COUNT(*) AS n FROM documents GROUP BY collection').all() as Array<{
    collection: string;
    n: number;
  }>;
  return new Map(rows.map((row) => [row.collection, row.n]));
}

/** One page of a collection, ids descending (StateStore.listDocPage): the primary key's index in its order. */
export function listDocPage(db: Database.Database, collection: string, page: DocPage): Array<{ id: string; doc: Record<string, unknown> }> {
  const rows = statement(
    db,
    'SELECT id, doc FROM documents WHERE collection = ? AND (? IS NULL OR id < ?) AND (? IS NULL OR id >= ?) ORDER BY id DESC LIMIT ?',
  ).all(collection, page.below ?? null, page.below ?? null, page.atOrAbove ?? null, page.atOrAbove ?? null, page.limit) as Array<{ id: string; doc: string }>;
  return rows.map((row) => ({ id: row.id, doc: JSON.parse(row.doc) as Record<string, unknown> }));
}
