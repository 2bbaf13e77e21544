import type pg from 'pg';

export type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * Runs `work` in one transaction on one pooled connection: committed when it resolves, rolled
 * back when it throws. Every store write goes through here, so a write is durable (committed)
 * before its promise resolves.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {
      broken = true;
    });
    throw err;
  } finally {
    client.release(broken);
  }
}
