/**
 * pg-boss 10 peer for the end-to-end scenario: `send(queue, data, {singletonKey})` from the
 * benchmark process, `work` handlers with a no-op in their own process, PostgreSQL on loopback.
 *
 * In pg-boss 10 a singletonKey deduplicates only within a throttle slot (`singletonSeconds`) or
 * per queue-policy state, so the key is sent with the longest slot pg-boss allows (its archive
 * interval) plus a job id derived from the key: the job table's primary key then refuses a
 * duplicate whatever slot it lands in. The whole pg-boss schema is dropped afterwards.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { onCleanup } from '../lib/cleanup.js';
import { measureExactlyOnce, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { assertLoopback } from '../lib/loopback.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import { tcpReachable } from '../lib/util.js';
import type { QueuePeerOptions } from './bullmq.js';

export const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';
/** pg-boss's default archive interval (12 h), the longest singleton slot it accepts. */
const SINGLETON_SECONDS = 12 * 60 * 60;

export interface PgBossOptions extends QueuePeerOptions {
  batchSize: number;
  pollingIntervalSeconds: number;
}

export async function pgBossAvailable(): Promise<boolean> {
  const url = new URL(assertLoopback(PG_URL));
  if (!(await tcpReachable(url.hostname, Number(url.port)))) return false;
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** What a committed job survives, read from the server's settings. */
export async function postgresDurability(): Promise<string> {
  const client = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    const sync = (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]?.synchronous_commit;
    const fsync = (await client.query<{ fsync: string }>('SHOW fsync')).rows[0]?.fsync;
    if (fsync !== 'on') return 'fsync off: a crash can lose committed jobs';
    return sync === 'off' ? 'WAL fsynced in the background (synchronous_commit off)' : `WAL fsynced at COMMIT (synchronous_commit ${sync})`;
  } catch {
    return 'unknown';
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A stable UUID-shaped id for a key (SHA-1 based, version nibble 5). */
function keyUuid(key: string): string {
  const h = createHash('sha1').update(key).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function runPgBoss(plan: ExactlyOncePlan, options: PgBossOptions): Promise<ExactlyOnceResult> {
  assertLoopback(PG_URL);
  const schema = `bench_pgboss_${plan.tag.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
  const queueName = `bench-e2e`;
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  const boss = new PgBoss({ connectionString: PG_URL, schema, max: 10, supervise: false, schedule: false });
  boss.on('error', (err: Error) => console.error(`pg-boss error: ${err.message}`));
  const dropSchema = onCleanup(`pg-boss schema ${schema}`, async () => {
    await boss.stop({ graceful: false, wait: true, timeout: 5000 }).catch(() => undefined);
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  });
  try {
    await boss.start();
    await boss.createQueue(queueName);
    const worker = spawnPeer(join(PEERS_DIR, 'pg-boss-worker.ts'), {
      connectionString: PG_URL,
      schema,
      queue: queueName,
      workers: options.concurrency,
      batchSize: options.batchSize,
      pollingIntervalSeconds: options.pollingIntervalSeconds,
    });
    try {
      await worker.next('ready');
      const send = (key: string) =>
        boss.send(queueName, { key }, { singletonKey: key, singletonSeconds: SINGLETON_SECONDS, id: keyUuid(key) });
      const countStates = async () => {
        const res = await client.query<{ completed: number; failed: number }>(
          `SELECT count(*) FILTER (WHERE state = 'completed')::int AS completed,
                  count(*) FILTER (WHERE state = 'failed')::int AS failed
             FROM "${schema}".job WHERE name = $1`,
          [queueName],
        );
        return res.rows[0] ?? { completed: 0, failed: 0 };
      };
      const { finalCounts, ...figures } = await measureExactlyOnce(
        plan,
        { submit: send, finishedCounts: countStates },
        worker,
        options,
      );
      return {
        system: 'pg-boss',
        ...figures,
        settings: {
          workers: options.concurrency,
          batchSize: options.batchSize,
          pollingIntervalSeconds: options.pollingIntervalSeconds,
          submitConcurrency: options.submitConcurrency,
          dedupe: `singletonKey + singletonSeconds=${SINGLETON_SECONDS} + key-derived job id`,
        },
        extra: { jobStates: finalCounts },
      };
    } finally {
      await worker.kill();
    }
  } finally {
    await dropSchema();
  }
}
