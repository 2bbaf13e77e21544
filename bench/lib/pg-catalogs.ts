import pg from 'pg';
import { PG_URL } from '../peers/pg-boss.js';

/** The system catalogs that creating and dropping a schema leaves dead rows in. */
const CHURNED_CATALOGS = ['pg_attribute', 'pg_class', 'pg_depend', 'pg_type', 'pg_index', 'pg_constraint', 'pg_attrdef', 'pg_sequence'];

/**
 * Vacuums the catalogs before a PostgreSQL scenario measures anything. Every system under test
 * works in fresh schemas (each pg-boss round and each service cluster its own), and the test
 * suite does the same: where autovacuum is off (this project's CI machines turn it off), the
 * catalogs keep every dropped table's rows as dead ones, 100,000 of them in pg_attribute after
 * an afternoon of runs, and every plan and relation lookup of every system walks them. Answers
 * what was found, for the scenario's details: autovacuum's setting and the dead catalog rows
 * before the vacuum.
 */
export async function vacuumCatalogs(): Promise<{ autovacuum: string; deadCatalogRows: number } | { error: string }> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const autovacuum = (await client.query<{ autovacuum: string }>('SHOW autovacuum')).rows[0]?.autovacuum ?? 'unknown';
    const dead = await client.query<{ n: string }>('SELECT COALESCE(SUM(n_dead_tup), 0) AS n FROM pg_stat_sys_tables WHERE relname = ANY($1::text[])', [CHURNED_CATALOGS]);
    await client.query(`VACUUM ${CHURNED_CATALOGS.map((name) => `pg_catalog.${name}`).join(', ')}`);
    return { autovacuum, deadCatalogRows: Number(dead.rows[0]!.n) };
  } catch (err) {
    return { error: (err as Error).message };
  } finally {
    await client.end().catch(() => undefined);
  }
}
