import { describe, expect, it } from 'vitest';
import { FlushScheduler } from '../../src/store/flush-scheduler.js';

describe('FlushScheduler', () => {
  it('runs one flush at a time, even when a flush requests the next while it is being called', async () => {
    let running = 0;
    let most = 0;
    let flushes = 0;
    const scheduler: FlushScheduler = new FlushScheduler(0, async () => {
      running++;
      most = Math.max(most, running);
      flushes++;
      // Leaves work for another flush before its first await (a batch split at an exclusive write).
      if (flushes < 3) scheduler.request();
      await new Promise((resolve) => setTimeout(resolve, 5));
      running--;
    });
    scheduler.request();
    for (let i = 0; i < 200 && flushes < 3; i++) await new Promise((resolve) => setTimeout(resolve, 2));
    await scheduler.drain();
    expect(flushes).toBe(3);
    expect(most).toBe(1);
  });
});
