/**
 * pg-boss 10 peer for the end-to-end scenario: `send(queue, data, {singletonKey})` from the
 * benchmark process, `work` handlers with a no-op in their own process, PostgreSQL on loopback.
 *
 * Deduplication is a job id derived from the key: the job table's primary key refuses a
 * duplicate whatever state the first job is in (a singletonKey would add a second, narrower
 * rule on top and an index lookup per send). The sender's pool is sized for the bench's
 * concurrent senders, so sends do not queue for a connection. The whole pg-boss schema is
 * dropped afterwards.
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { onCleanup } from '../lib/cleanup.js';
import { measureExactlyOnce, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { assertLoopback } from '../lib/loopback.js';
import { PEERS_DIR } from '../lib/paths.js';
import { benchCpuMs, cpuMeter, postgresCpuMs, processCpuMs } from '../lib/process-cpu.js';
import { spawnPeer } from '../lib/peer-process.js';
import { tcpReachable } from '../lib/util.js';
import type { QueuePeerOptions } from './bullmq.js';

export const PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

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
  // One connection per concurrent sender plus one for the state polls.
  const boss = new PgBoss({ connectionString: PG_URL, schema, max: options.submitConcurrency + 1, supervise: false, schedule: false });
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
      const send = (key: string) => boss.send(queueName, { key }, { id: keyUuid(key) });
      const countStates = async () => {
        const res = await client.query<{ completed: number; failed: number }>(
          `SELECT count(*) FILTER (WHERE state = 'completed')::int AS completed,
                  count(*) FILTER (WHERE state = 'failed')::int AS failed
             FROM "${schema}".job WHERE name = $1`,
          [queueName],
        );
        return res.rows[0] ?? { completed: 0, failed: 0 };
      };
      const unfinished = async () => {
        const res = await client.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM "${schema}".job WHERE name = $1 AND state IN ('created', 'retry', 'active')`,
          [queueName],
        );
        return res.rows[0]?.n ?? 0;
      };
      const meter = () => cpuMeter({ 'pg-boss worker': () => processCpuMs(worker.child.pid), postgres: postgresCpuMs, 'bench (sender)': benchCpuMs });
      const { finalCounts, cpuSec, ...figures } = await measureExactlyOnce(
        plan,
        { submit: send, finishedCounts: countStates, unfinished },
        worker,
        options,
        meter,
      );
      return {
        system: 'pg-boss',
        ...figures,
        settings: {
          workers: options.concurrency,
          batchSize: options.batchSize,
          pollingIntervalSeconds: options.pollingIntervalSeconds,
          submitConcurrency: options.submitConcurrency,
          dedupe: 'key-derived job id',
        },
        extra: { jobStates: finalCounts, cpuSec },
      };
    } finally {
      await worker.kill();
    }
  } finally {
    await dropSchema();
  }
}

export interface PgBossSweepPoint {
  workers: number;
  batchSize: number;
  result: ExactlyOnceResult | null;
  error?: string;
}

/**
 * pg-boss at its best: the plan run once per workers × batch size (each on a fresh schema,
 * under keys of its own), the fastest point whose checks all passed kept. A point that failed
 * its checks is reported but never chosen as the baseline.
 */
export async function sweepPgBoss(
  plan: ExactlyOncePlan,
  grid: { workers: number[]; batchSizes: number[] },
  options: Omit<PgBossOptions, 'concurrency' | 'batchSize'>,
  rekey: (plan: ExactlyOncePlan, suffix: string) => ExactlyOncePlan,
  passes: (r: ExactlyOnceResult) => boolean,
): Promise<{ best: ExactlyOnceResult | null; points: PgBossSweepPoint[] }> {
  const points: PgBossSweepPoint[] = [];
  for (const workers of grid.workers) {
    for (const batchSize of grid.batchSizes) {
      try {
        const result = await runPgBoss(rekey(plan, `w${workers}b${batchSize}`), { ...options, concurrency: workers, batchSize });
        points.push({ workers, batchSize, result });
      } catch (err) {
        points.push({ workers, batchSize, result: null, error: err instanceof Error ? err.message : String(err) });
      }
    }
  }
  const passing = points.filter((p) => p.result && passes(p.result)).map((p) => p.result!);
  const pool = passing.length ? passing : points.flatMap((p) => (p.result ? [p.result] : []));
  const best = pool.reduce<ExactlyOnceResult | null>((a, b) => (a === null || (b.tasksPerSec || 0) > (a.tasksPerSec || 0) ? b : a), null);
  return { best, points };
}
