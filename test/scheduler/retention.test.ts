import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createScheduler, retentionSlack, type Scheduler } from '../../src/scheduler/scheduler.js';
import type { StateStore } from '../../src/store/types.js';
import { testConfig } from '../support/config.js';

/** A store whose retention passes the test releases one at a time, each deleting `removed` runs. */
function pruneProbe() {
  const passes: Array<(removed?: number) => void> = [];
  const store = {
    pruneRuns: () => new Promise<number>((resolve) => passes.push((removed = 1) => resolve(removed))),
  } as unknown as StateStore;
  return { store, passes };
}

const settle = () => new Promise((r) => setTimeout(r, 10));

/** A started scheduler with cron jobs off and runRetention 1,000 over the given store. */
function schedulerOver(store: StateStore, onInvalidate: () => void = () => undefined, afterPrune?: () => Promise<unknown>): Scheduler {
  const started = createScheduler({
    config: { ...testConfig({}), schedulerEnabled: false, runRetention: 1000 },
    clock: systemClock,
    logger: pino({ level: 'silent' }),
    store,
    admit: async () => {
      throw new Error('nothing is admitted here');
    },
    admitDueRetries: async () => 0,
    invalidator: { invalidate: async () => onInvalidate() },
    afterPrune,
  });
  started.start();
  return started;
}

let scheduler: Scheduler | null = null;

afterEach(() => {
  scheduler?.stop();
  scheduler = null;
});

describe('run retention', () => {
  it('is a tenth of runRetention, at least 100', () => {
    expect(retentionSlack(5000)).toBe(500);
    expect(retentionSlack(10)).toBe(100);
    expect(retentionSlack(1500)).toBe(150);
  });

  it('runs early once as many runs finished as the slack, one pass at a time, a request during a pass served by one more', async () => {
    const { store, passes } = pruneProbe();
    let invalidations = 0;
    scheduler = schedulerOver(store, () => (invalidations += 1));
    // The pass at start.
    expect(passes).toHaveLength(1);
    passes[0]!();
    await settle();
    expect(invalidations).toBe(1);

    for (let i = 0; i < retentionSlack(1000) - 1; i++) scheduler.noteRunFinished();
    expect(passes).toHaveLength(1);
    scheduler.noteRunFinished();
    expect(passes).toHaveLength(2);

    // While that pass runs, two more slacks' worth of runs finish: one more pass, after it.
    for (let i = 0; i < 2 * retentionSlack(1000); i++) scheduler.noteRunFinished();
    expect(passes).toHaveLength(2);
    passes[1]!();
    await settle();
    expect(passes).toHaveLength(3);
    passes[2]!();
    await settle();
    expect(passes).toHaveLength(3);
    expect(invalidations).toBe(3);
  });

  it('removes what belongs to pruned runs (their logs) after a pass that deleted runs, and only then', async () => {
    const { store, passes } = pruneProbe();
    let sweeps = 0;
    scheduler = schedulerOver(store, undefined, async () => (sweeps += 1));
    passes[0]!(0);
    await settle();
    expect(sweeps).toBe(0);
    for (let i = 0; i < retentionSlack(1000); i++) scheduler.noteRunFinished();
    passes[1]!(3);
    await settle();
    expect(sweeps).toBe(1);
  });

  it('starts no pass once stopped (runs finishing during shutdown)', async () => {
    const { store, passes } = pruneProbe();
    const stopped = schedulerOver(store);
    passes[0]!();
    await settle();
    stopped.stop();
    for (let i = 0; i < 3 * retentionSlack(1000); i++) stopped.noteRunFinished();
    expect(passes).toHaveLength(1);
  });
});
