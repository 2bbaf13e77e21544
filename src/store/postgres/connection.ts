import type pg from 'pg';
import { lazyPackage } from '../../common/lazy-package.js';
import { configError } from '../../config/errors.js';

/** The driver, loaded when a PostgreSQL store or channel first connects (a start on another store never loads it). */
export const loadPg = lazyPackage<typeof pg>('pg');

/**
 * How the PostgreSQL store reaches its database. `DATABASE_URL` is a libpq-style URL; the
 * service's own query parameter `schema=<name>` picks the schema the store's tables live in
 * (default `public`), so several deployments or test runs can share one database. The
 * parameter is removed before the URL reaches the driver.
 */
export interface PostgresTarget {
  connectionString: string;
  schema: string;
  /** host:port/database, never user or password: what health and logs may show. */
  display: string;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export function parsePostgresUrl(url: string): PostgresTarget {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw configError('DATABASE_URL is not a valid postgres:// URL');
  }
  const schema = parsed.searchParams.get('schema') ?? 'public';
  if (!SCHEMA_NAME.test(schema)) throw configError(`DATABASE_URL schema ${JSON.stringify(schema)} is not a plain lower-case identifier`);
  parsed.searchParams.delete('schema');
  const database = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
  return {
    connectionString: parsed.toString(),
    schema,
    display: `${parsed.hostname}${parsed.port ? `:${parsed.port}` : ''}/${database}${schema === 'public' ? '' : `?schema=${schema}`}`,
  };
}

/** A double-quoted identifier (the schema name is already checked to be plain). */
export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * A pool whose every connection works in the store's schema. Pool errors on idle clients (a
 * server restart) are reported, not thrown: the next query reconnects. Every connection also
 * carries an `error` listener of its own for its whole life: the server ending a connection
 * (restart, failover, `pg_terminate_backend`) can emit `error` on a client that is checked out,
 * being released or being closed, and an `error` event without a listener ends the process.
 * The query in flight rejects by itself, so the listener only has to exist.
 */
export function createPool(target: PostgresTarget, max: number, onIdleError: (err: Error) => void): pg.Pool {
  const pool = new (loadPg().Pool)({
    connectionString: target.connectionString,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: 10_000,
    options: `-c search_path=${target.schema}`,
  });
  pool.on('error', onIdleError);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  return pool;
}
