import type pg from 'pg';
import { isPlainObject } from '../record-checks.js';
import { stateCorrupt, type DocPage } from '../types.js';

export async function putDoc(pool: pg.Pool, collection: string, id: string, doc: Record<string, unknown>): Promise<void> {
  const text = JSON.stringify(doc);
  if (!isPlainObject(JSON.parse(text))) throw stateCorrupt(`refusing to store document ${collection}/${id}: not an object`);
  await pool.query(
    'INSERT INTO documents (collection, id, doc) VALUES ($1, $2, $3::jsonb) ON CONFLICT (collection, id) DO UPDATE SET doc = excluded.doc',
    [collection, id, text],
  );
}

export async function insertDoc(pool: pg.Pool, collection: string, id: string, doc: Record<string, unknown>): Promise<boolean> {
  const text = JSON.stringify(doc);
  if (!isPlainObject(JSON.parse(text))) throw stateCorrupt(`refusing to store document ${collection}/${id}: not an object`);
  const { rowCount } = await pool.query('INSERT INTO documents (collection, id, doc) VALUES ($1, $2, $3::jsonb) ON CONFLICT (collection, id) DO NOTHING', [
    collection,
    id,
    text,
  ]);
  return rowCount === 1;
}

export async function deleteDoc(pool: pg.Pool, collection: string, id: string): Promise<void> {
  await pool.query('DELETE FROM documents WHERE collection = $1 AND id = $2', [collection, id]);
}

export async function getDoc(pool: pg.Pool, collection: string, id: string): Promise<Record<string, unknown> | null> {
  const { rows } = await pool.query<{ doc: Record<string, unknown> }>('SELECT doc FROM documents WHERE collection = $1 AND id = $2', [
    collection,
    id,
  ]);
  return rows[0]?.doc ?? null;
}

export async function listDocEntries(pool: pg.Pool, collection: string): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
  const { rows } = await pool.query<{ id: string; doc: Record<string, unknown> }>(
    'SELECT id, doc FROM documents WHERE collection = $1 ORDER BY id COLLATE "C"',
    [collection],
  );
  return rows;
}

/** Every document of a collection, ordered by id (byte order, as the other drivers). */
export async function listDocs(pool: pg.Pool, collection: string): Promise<Record<string, unknown>[]> {
  const { rows } = await pool.query<{ doc: Record<string, unknown> }>(
    'SELECT doc FROM documents WHERE collection = $1 ORDER BY id COLLATE "C"',
    [collection],
  );
  return rows.map((row) => row.doc);
}

/**
 * One page of a collection, ids descending (StateStore.listDocPage), walked on the primary key's
 * index: the ids compare in the column's collation, which orders the ids a pager uses (ASCII
 * digits, lowercase letters, `-`) as bytes do.
 */
export async function listDocPage(pool: pg.Pool, collection: string, page: DocPage): Promise<Array<{ id: string; doc: Record<string, unknown> }>> {
  const { rows } = await pool.query<{ id: string; doc: Record<string, unknown> }>(
    `SELECT id, doc FROM documents WHERE collection = $1 AND ($2::text IS NULL OR id < $2) AND ($3::text IS NULL OR id >= $3)
     ORDER BY id DESC LIMIT $4`,
    [collection, page.below ?? null, page.atOrAbove ?? null, page.limit],
  );
  return rows;
}
