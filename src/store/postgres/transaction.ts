import type pg from 'pg';

export type Queryable = Pick<pg.PoolClient, 'query'>;

/**
 * Checks out a connection with an `error` listener for as long as it is held. A checked-out
 * `pg` client whose socket ends (the server restarts, `pg_terminate_backend`, a failover) emits
 * `error`; without a listener that event would end the process. The pending query rejects on
 * its own, so the listener only has to exist; the connection is then released as broken.
 */
export async function checkOut(pool: pg.Pool): Promise<{ client: pg.PoolClient; release: (broken: boolean) => void; lost: () => boolean }> {
  const client = await pool.connect();
  let lost = false;
  const onError = () => {
    lost = true;
  };
  client.on('error', onError);
  return {
    client,
    lost: () => lost,
    release: (broken) => {
      client.removeListener('error', onError);
      client.release(broken || lost);
    },
  };
}

/**
 * Runs `work` in one transaction on one pooled connection: committed when it resolves, rolled
 * back when it throws. Every store write goes through here, so a write is durable (committed)
 * before its promise resolves.
 */
export async function withTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const held = await checkOut(pool);
  const { client } = held;
  let broken = false;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (err) {
    if (!held.lost()) {
      await client.query('ROLLBACK').catch(() => {
        broken = true;
      });
    }
    throw err;
  } finally {
    held.release(broken);
  }
}
