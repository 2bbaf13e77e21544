import { describe, expect, it } from 'vitest';
import { queueHoldsOf } from '../../src/runtime/queue-hold.js';
import type { LimitUsage } from '../../src/store/limit-buckets.js';
import type { ClaimOptions } from '../../src/store/types.js';
import { makeRun } from '../support/runs.js';

/** A store that answers fixed limit usage and counts its reads. */
function countingStore(usage: LimitUsage) {
  const reads: ClaimOptions[] = [];
  return {
    reads,
    readLimitUsage: async (options: ClaimOptions) => {
      reads.push(options);
      return usage;
    },
  };
}

const config = {
  typeConcurrency: { 'build-refactor': 1 },
  limits: [{ name: 'deploys', match: { keyPrefix: 'env/' }, perKey: 1 }],
};
const now = new Date('2026-03-01T10:00:00.000Z');

describe('the holds of a page of runs', () => {
  it('reads what the limits count once for the whole page and names each ready run\'s hold', async () => {
    const store = countingStore({ running: [{ type: 'doc-sync', key: 'env/a', n: 1 }, { type: 'build-refactor', key: '', n: 1 }], started: [] });
    const runs = [
      ...Array.from({ length: 50 }, (_, i) => makeRun({ runId: `a-${i}`, concurrencyKey: 'env/a' })),
      makeRun({ runId: 'b', concurrencyKey: 'env/b' }),
      makeRun({ runId: 'build', type: 'build-refactor' }),
      makeRun({ runId: 'done', concurrencyKey: 'env/a', status: 'success', queueState: null }),
    ];
    const holds = await queueHoldsOf(store, config, runs, now);
    expect(store.reads).toHaveLength(1);
    expect(holds.slice(0, 50)).toEqual(Array(50).fill('deploys'));
    expect(holds.slice(50)).toEqual([null, 'type:build-refactor', null]);
  });

  it('reads nothing when no run of the page is ready, or no limit is configured', async () => {
    const store = countingStore({ running: [], started: [] });
    const finished = [makeRun({ runId: 'x', status: 'success', queueState: null })];
    expect(await queueHoldsOf(store, config, finished, now)).toEqual([null]);
    expect(await queueHoldsOf(store, { typeConcurrency: {}, limits: [] }, [makeRun({ runId: 'y' })], now)).toEqual([null]);
    expect(store.reads).toHaveLength(0);
  });
});
