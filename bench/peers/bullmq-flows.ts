/**
 * BullMQ flows peer for the flows scenario: the fan-out/fan-in (a root, the middle steps after
 * it, a join after all of them) on a Redis the scenario passes in (its own, `appendfsync
 * always`, durable like the service). The worker runs in its own process
 * (bullmq-flow-worker.ts): a root's completion adds the join and its children through
 * FlowProducer, and BullMQ holds the join until every child completed. A round is timed from
 * adding the root to the join's completion, as the service's from the flow's POST to its end.
 */
import { join } from 'node:path';
import { PEERS_DIR } from '../lib/paths.js';
import { spawnPeer } from '../lib/peer-process.js';
import { benchQueue } from './bullmq.js';

export interface BullmqFlowRound {
  /** From adding the root to the join's completion; null when the round did not end in time or a step failed. */
  ms: number | null;
  /** Why the round has no time (a failed step, a refused flow, the time cap). */
  error: string | null;
  /** Executions per step key (`<tag>.<step>`), counted by the worker's handler. */
  counts: Record<string, number>;
  /** BullMQ's own start (processedOn) and end (finishedOn) of each completed step, epoch ms. */
  times: Record<string, { startedAt: number | null; finishedAt: number | null }>;
}

export interface BullmqFlowsPeer {
  /** One fan-out/fan-in of `steps` steps (root, `steps - 2` middle, join), keyed `<tag>.<step>`. */
  round(tag: string, steps: number, timeoutMs: number): Promise<BullmqFlowRound>;
  stop(): Promise<void>;
}

/** The worker's step key for a step of the shape (`root`, `m<i>`, `join`) in the round `tag`. */
export const bullmqStepKey = (tag: string, step: string) => `${tag}.${step}`;

export async function startBullmqFlows(options: { redisUrl: string; concurrency: number; name: string }): Promise<BullmqFlowsPeer> {
  const queueName = `bench-flows-${options.name}-${process.pid}`;
  const { queue, connection, drop: dropQueue } = benchQueue(options.redisUrl, queueName);
  try {
    await queue.waitUntilReady();
    const worker = spawnPeer(join(PEERS_DIR, 'bullmq-flow-worker.ts'), { queue: queueName, concurrency: options.concurrency, host: connection.host, port: connection.port });
    try {
      await worker.next('ready');
    } catch (err) {
      await worker.kill();
      throw err;
    }
    return {
      async round(tag, steps, timeoutMs) {
        const t0 = performance.now();
        await queue.add('root', { tag, key: bullmqStepKey(tag, 'root'), middle: steps - 2 }, { jobId: bullmqStepKey(tag, 'root') });
        let ms: number | null = null;
        let error: string | null = null;
        const deadline = Date.now() + timeoutMs;
        try {
          // An earlier round's late message (none expected) is skipped by its tag.
          for (;;) {
            const done = await worker.next<{ type: string; tag: string; error?: string }>('flow-done', Math.max(1, deadline - Date.now()));
            if (done.tag !== tag) continue;
            if (done.error) error = done.error;
            else ms = performance.now() - t0;
            break;
          }
        } catch (err) {
          error = `the join did not complete in ${Math.round(timeoutMs / 1000)} s (${err instanceof Error ? err.message.split('\n')[0] : String(err)})`;
        }
        worker.send({ type: 'report', tag });
        const report = await worker.next<{ type: string; counts: BullmqFlowRound['counts']; times: BullmqFlowRound['times'] }>('report');
        return { ms, error, counts: report.counts, times: report.times };
      },
      async stop() {
        await worker.kill();
        await dropQueue();
      },
    };
  } catch (err) {
    await dropQueue();
    throw err;
  }
}
