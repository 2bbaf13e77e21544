/**
 * BullMQ peer for the end-to-end scenario: `queue.add(name, data, {jobId: key})` from the
 * benchmark process, a Worker with a no-op handler in its own process, Redis on loopback.
 * Completed jobs are kept (BullMQ's default), so a late duplicate id is still recognised.
 */
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { onCleanup } from '../lib/cleanup.js';
import { measureExactlyOnce, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { assertLoopback } from '../lib/loopback.js';
import { PEERS_DIR } from '../lib/paths.js';
import { benchCpuMs, cpuMeter, processCpuMs } from '../lib/process-cpu.js';
import { spawnPeer } from '../lib/peer-process.js';
import { tcpReachable } from '../lib/util.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface QueuePeerOptions {
  concurrency: number;
  submitConcurrency: number;
  timeoutMs: number;
  settleMs: number;
}

export async function bullmqAvailable(redisUrl = REDIS_URL): Promise<boolean> {
  const url = new URL(assertLoopback(redisUrl));
  return tcpReachable(url.hostname, Number(url.port));
}

/** What an acknowledged write to this Redis survives, read from its own configuration. */
export async function redisDurability(redisUrl = REDIS_URL): Promise<string> {
  const client = new Redis(assertLoopback(redisUrl), { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    const [, appendonly] = (await client.config('GET', 'appendonly')) as string[];
    const [, appendfsync] = (await client.config('GET', 'appendfsync')) as string[];
    if (appendonly !== 'yes') return 'memory only until a snapshot (appendonly no): a crash loses recent jobs';
    if (appendfsync === 'always') return 'AOF fsynced before each reply (appendfsync always)';
    return `AOF fsynced ${appendfsync === 'everysec' ? 'once a second: up to 1 s lost on power loss' : `per ${appendfsync}`}`;
  } catch {
    return 'unknown (CONFIG GET refused)';
  } finally {
    client.disconnect();
  }
}

/** A queue of the bench's on a loopback Redis, obliterated at `drop` (or at cleanup, whichever comes first). */
export function benchQueue(redisUrl: string, queueName: string) {
  const url = new URL(assertLoopback(redisUrl));
  const connection = { host: url.hostname, port: Number(url.port), maxRetriesPerRequest: null };
  const queue = new Queue(queueName, { connection });
  const drop = onCleanup(`bullmq queue ${queueName}`, async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
  return { queue, connection, drop };
}

export async function runBullmq(plan: ExactlyOncePlan, options: QueuePeerOptions & { redisUrl?: string }): Promise<ExactlyOnceResult> {
  const queueName = `bench-e2e-${plan.tag}`;
  const { queue, connection, drop: dropQueue } = benchQueue(options.redisUrl ?? REDIS_URL, queueName);
  const { host, port } = connection;
  try {
    await queue.waitUntilReady();
    const worker = spawnPeer(join(PEERS_DIR, 'bullmq-worker.ts'), {
      queue: queueName,
      concurrency: options.concurrency,
      host,
      port,
    });
    try {
      await worker.next('ready');
      const { finalCounts, cpuSec, ...figures } = await measureExactlyOnce(
        plan,
        {
          submit: (key) => queue.add('noop', { key }, { jobId: key }),
          finishedCounts: async () => {
            const c = await queue.getJobCounts('completed', 'failed');
            return { completed: c.completed ?? 0, failed: c.failed ?? 0 };
          },
          unfinished: async () => {
            const c = await queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized');
            return Object.values(c).reduce((a, b) => a + (b ?? 0), 0);
          },
        },
        worker,
        options,
        () => cpuMeter({ 'bullmq worker': () => processCpuMs(worker.child.pid), 'bench (sender)': benchCpuMs }),
      );
      return {
        system: 'bullmq',
        ...figures,
        settings: { workerConcurrency: options.concurrency, submitConcurrency: options.submitConcurrency, dedupe: 'jobId' },
        extra: { jobCounts: finalCounts, cpuSec },
      };
    } finally {
      await worker.kill();
    }
  } finally {
    await dropQueue();
  }
}
