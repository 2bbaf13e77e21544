/**
 * The flows scenario's BullMQ peer on a small scale: a root whose completion adds the join and
 * its children through FlowProducer, each step run once by the worker's own count, and the join
 * started only after its last child ended (BullMQ's own timestamps).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { runCleanups } from '../../bench/lib/cleanup.js';
import { countExecutions, dependencyLatencies, exactlyOnce, fanOutFanIn } from '../../bench/lib/flow-checks.js';
import { bullmqStepKey, startBullmqFlows } from '../../bench/peers/bullmq-flows.js';

const url = process.env.TEST_REDIS_URL;

afterAll(async () => {
  await runCleanups();
});

describe.skipIf(!url)('BullMQ flows peer (needs TEST_REDIS_URL)', () => {
  it('runs a fan-out/fan-in round by round: every step once, the middle after the root, the join after every middle', async () => {
    const peer = await startBullmqFlows({ redisUrl: url!, concurrency: 4, name: `test-${Date.now().toString(36)}` });
    try {
      const steps = fanOutFanIn(8);
      for (const tag of ['t1', 't2']) {
        const round = await peer.round(tag, steps.length, 30_000);
        expect(round.error).toBeNull();
        expect(round.ms).toBeGreaterThan(0);
        const count = countExecutions(round.counts, steps.map((s) => bullmqStepKey(tag, s.key)), bullmqStepKey(tag, ''));
        expect(exactlyOnce(count)).toBe(true);
        const time = (key: string) => round.times[bullmqStepKey(tag, key)];
        const { latencies, unmeasured } = dependencyLatencies(steps, (k) => time(k)?.finishedAt ?? null, (k) => time(k)?.startedAt ?? null);
        expect(unmeasured).toBe(0);
        expect(latencies).toHaveLength(7);
        expect(Math.min(...latencies)).toBeGreaterThanOrEqual(0);
      }
    } finally {
      await peer.stop();
    }
  }, 60_000);
});
