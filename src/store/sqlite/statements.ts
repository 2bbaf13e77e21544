import type Database from 'better-sqlite3';

const cache = new WeakMap<Database.Database, Map<string, Database.Statement>>();

/**
 * A prepared statement for `sql` on `db`, prepared once per connection. The query functions
 * call this instead of holding statement objects, so each operation reads as its SQL.
 */
export function statement(db: Database.Database, sql: string): Database.Statement {
  let forDb = cache.get(db);
  if (forDb === undefined) {
    forDb = new Map();
    cache.set(db, forDb);
  }
  let prepared = forDb.get(sql);
  if (prepared === undefined) {
    prepared = db.prepare(sql);
    forDb.set(sql, prepared);
  }
  return prepared;
}
