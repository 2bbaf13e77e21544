import { describe, expect, it } from 'vitest';
import type { OpenLoopResult } from '../../bench/lib/open-loop.js';
import { describeSweep, stepPassed, sweepSaturation } from '../../bench/lib/saturation.js';

/** A step at `rate` with the given p99; every arrival answered 202 unless `extra` says otherwise. */
function step(rate: number, p99: number, extra: Partial<OpenLoopResult> = {}): OpenLoopResult {
  return {
    ratePerSec: rate,
    sent: 100,
    ok2xx: 100,
    statusCodes: { '202': 100 },
    errors: 0,
    timedOut: 0,
    latencyMs: { p50: p99 / 2, p99, p999: p99, max: p99 },
    ...extra,
  };
}

/** A target that keeps p99 low up to `capacity` arrivals/s and blows past the bound above it. */
function target(capacity: number) {
  const rates: number[] = [];
  return {
    rates,
    run: async (rate: number) => {
      rates.push(rate);
      return step(rate, rate <= capacity ? 10 : 900);
    },
  };
}

const base = { factor: 1.5, stepSec: 0, maxSteps: 8, maxMs: 60_000, p99BoundMs: 100, drainMs: 0 };

describe('saturation sweep', () => {
  it('steps up from the fixed rate and stops at the first failed step', async () => {
    const t = target(1000);
    const sweep = await sweepSaturation({ ...base, first: step(300, 10), step: t.run });
    expect(t.rates).toEqual([450, 675, 1013]);
    expect(sweep).toMatchObject({ saturationPerSec: 675, direction: 'up', stoppedBy: 'step failed' });
    expect(sweep.steps.map((s) => s.ratePerSec)).toEqual([300, 450, 675, 1013]);
  });

  it('steps down when the fixed rate itself fails, until a step passes', async () => {
    const t = target(150);
    const sweep = await sweepSaturation({ ...base, first: step(300, 400), step: t.run });
    expect(t.rates).toEqual([200, 133]);
    expect(sweep).toMatchObject({ saturationPerSec: 133, direction: 'down', stoppedBy: 'step passed' });
  });

  it('reports no point when no step passes within the step cap', async () => {
    const t = target(0);
    const sweep = await sweepSaturation({ ...base, maxSteps: 3, first: step(300, 400), step: t.run });
    expect(t.rates).toHaveLength(3);
    expect(sweep).toMatchObject({ saturationPerSec: null, stoppedBy: 'step cap' });
  });

  it('keeps the last passing rate when the step cap ends an up-sweep', async () => {
    const t = target(1_000_000);
    const sweep = await sweepSaturation({ ...base, maxSteps: 2, first: step(100, 10), step: t.run });
    expect(sweep).toMatchObject({ saturationPerSec: 225, stoppedBy: 'step cap' });
  });

  it('starts no step that cannot end within the time cap', async () => {
    const t = target(1_000_000);
    const sweep = await sweepSaturation({ ...base, stepSec: 1, drainMs: 500, maxMs: 1000, first: step(100, 10), step: t.run });
    expect(t.rates).toEqual([]);
    expect(sweep).toMatchObject({ saturationPerSec: 100, stoppedBy: 'time cap' });
  });

  it('fails a step with an unanswered arrival, a socket error or a non-2xx, whatever its p99', () => {
    expect(stepPassed(step(100, 10), 100)).toBe(true);
    expect(stepPassed(step(100, 101), 100)).toBe(false);
    expect(stepPassed(step(100, 10, { ok2xx: 99, timedOut: 1 }), 100)).toBe(false);
    expect(stepPassed(step(100, 10, { ok2xx: 99, errors: 1 }), 100)).toBe(false);
    expect(stepPassed(step(100, 10, { ok2xx: 99, statusCodes: { '202': 99, '429': 1 } }), 100)).toBe(false);
    expect(stepPassed(step(100, 10, { sent: 0, ok2xx: 0 }), 100)).toBe(false);
  });

  it('lists every step with its verdict in the note', async () => {
    const t = target(500);
    const sweep = await sweepSaturation({ ...base, first: step(300, 10), step: t.run });
    const note = describeSweep(sweep, 100);
    expect(note).toContain('p99 <= 100 ms');
    expect(note).toContain('300/s ok');
    expect(note).toContain('450/s ok');
    expect(note).toContain('675/s FAIL (p99 900 ms)');
    expect(note).toContain('ended: step failed');
  });
});
