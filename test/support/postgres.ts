import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The PostgreSQL that driver tests may use; unset means those tests are skipped. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined;

/** A schema name no other test run uses (the database is shared with other suites). */
export function uniqueSchema(prefix: string): string {
  return `t_${prefix}_${process.pid}_${randomBytes(3).toString('hex')}`.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 63);
}

/** The URL with the service's own `schema` parameter set. */
export function postgresUrlWithSchema(url: string, schema: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set('schema', schema);
  return parsed.toString();
}

/** Drops the schemas a test created (and only those). */
export async function dropTestSchemas(url: string, schemas: string[]): Promise<void> {
  if (schemas.length === 0) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const schema of schemas) await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
  } finally {
    await client.end();
  }
}
