/**
 * BullMQ peer for the end-to-end scenario: `queue.add(name, data, {jobId: key})` from the
 * benchmark process, a Worker with a no-op handler in its own process, Redis on loopback.
 * Completed jobs are kept (BullMQ's default), so a late duplicate id is still recognised.
 */
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { onCleanup } from '../lib/cleanup.js';
import { analyzeCounts, type ExactlyOncePlan, type ExactlyOnceResult } from '../lib/exactly-once.js';
import { assertLoopback } from '../lib/loopback.js';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import { runPool, sleep, tcpReachable, waitFor } from '../lib/util.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

export interface QueuePeerOptions {
  concurrency: number;
  submitConcurrency: number;
  timeoutMs: number;
  settleMs: number;
}

export async function bullmqAvailable(): Promise<boolean> {
  const url = new URL(assertLoopback(REDIS_URL));
  return tcpReachable(url.hostname, Number(url.port));
}

export async function runBullmq(plan: ExactlyOncePlan, options: QueuePeerOptions): Promise<ExactlyOnceResult> {
  const url = new URL(assertLoopback(REDIS_URL));
  const host = url.hostname;
  const port = Number(url.port);
  const connection = { host, port, maxRetriesPerRequest: null };
  const queueName = `bench-e2e-${plan.tag}`;
  const queue = new Queue(queueName, { connection });
  const dropQueue = onCleanup(`bullmq queue ${queueName}`, async () => {
    await queue.obliterate({ force: true });
    await queue.close();
  });
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
      const n = plan.unique.length;
      const t0 = performance.now();
      await runPool(plan.submissions, options.submitConcurrency, (key) => queue.add('noop', { key }, { jobId: key }));
      const submitMs = performance.now() - t0;
      const counts = await waitFor(
        async () => {
          const c = await queue.getJobCounts('completed', 'failed');
          return (c.completed ?? 0) + (c.failed ?? 0) >= n ? c : null;
        },
        { timeoutMs: options.timeoutMs, intervalMs: 20 },
      );
      const durationMs = performance.now() - t0;
      await runPool(plan.late, options.submitConcurrency, (key) => queue.add('noop', { key }, { jobId: key }));
      await sleep(options.settleMs);
      const final = await queue.getJobCounts('completed', 'failed');
      worker.send({ type: 'report' });
      const report = await worker.next<{ type: string; counts: Record<string, number> }>('report');
      const analysis = analyzeCounts(plan, report.counts);
      return {
        system: 'bullmq',
        unique: n,
        duplicatesSubmitted: plan.submissions.length - n + plan.late.length,
        completed: analysis.completed,
        failed: final.failed ?? 0,
        missing: analysis.missing,
        duplicatesExecuted: analysis.duplicatesExecuted,
        durationMs,
        submitMs,
        tasksPerSec: counts ? n / (durationMs / 1000) : Number.NaN,
        timedOut: counts === null,
        settings: { workerConcurrency: options.concurrency, submitConcurrency: options.submitConcurrency, dedupe: 'jobId' },
        extra: { jobCounts: final },
      };
    } finally {
      await worker.kill();
    }
  } finally {
    await dropQueue();
  }
}
