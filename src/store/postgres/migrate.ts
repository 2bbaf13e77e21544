import type pg from 'pg';
import { conflict } from '../../domain/errors.js';
import { quoteIdent } from './connection.js';
import { LATEST_VERSION, MIGRATIONS } from './migrations/index.js';
import { checkOut } from './transaction.js';

/** One advisory lock key per schema: instances starting together apply each migration once. */
const LOCK_NAMESPACE = 'orchestrator-schema-migrations:';

/**
 * Brings the schema to LATEST_VERSION. Every instance runs this at start; a session advisory
 * lock makes the others wait while one applies what is missing, after which they find nothing
 * left to do. A schema written by a newer build is refused instead of being used with the
 * wrong layout.
 */
export async function applyMigrations(pool: pg.Pool, schema: string): Promise<number> {
  const held = await checkOut(pool);
  const { client } = held;
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [LOCK_NAMESPACE + schema]);
    try {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(schema)}`);
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY,
        description TEXT NOT NULL,
        applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
      const { rows } = await client.query<{ version: number | null }>('SELECT MAX(version) AS version FROM schema_migrations');
      const current = rows[0]?.version ?? 0;
      if (current > LATEST_VERSION) {
        throw conflict(`PostgreSQL schema ${schema} has layout version ${current}; this build reads version ${LATEST_VERSION}`);
      }
      for (const migration of MIGRATIONS) {
        if (migration.version <= current) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO schema_migrations (version, description) VALUES ($1, $2)', [
            migration.version,
            migration.description,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
      return LATEST_VERSION;
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [LOCK_NAMESPACE + schema]);
    }
  } finally {
    held.release(false);
  }
}
