import { describe, expect, it } from 'vitest';
import { judge, median, MIN_ROUNDS, relativeSpread, SPREAD_BOUND, type PairedRound } from '../../bench/lib/verdict.js';

const pairs = (values: number[], baselines: number[]): PairedRound[] => values.map((value, i) => ({ value, baseline: baselines[i]! }));

describe('median of rounds', () => {
  it('takes the middle of 3 rounds whatever their order', () => {
    expect(median([0.7, 0.5, 0.6])).toBe(0.6);
  });

  it('takes the mean of the two middle values of 4 rounds', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('has none without rounds', () => {
    expect(median([])).toBeNull();
    expect(relativeSpread([])).toBeNull();
  });

  it('measures the spread against the median', () => {
    expect(relativeSpread([0.5, 0.6, 0.7])).toBeCloseTo(0.2 / 0.6, 10);
  });
});

describe('a goal judged on alternated rounds', () => {
  const noop = [10_000, 10_400, 9_800];
  const durable = [8_000, 8_200, 7_900];

  it('ordered ceilings and close rounds give a verdict on the median ratio', () => {
    const service = [5_600, 5_000, 5_300];
    const v = judge({
      better: 'higher',
      target: 0.5,
      baselineIsCeiling: true,
      rounds: pairs(service, noop),
      orders: [{ upper: 'bare fastify', lower: 'bare fastify + fdatasync', upperRounds: noop, lowerRounds: durable }],
    });
    expect(v.status).toBe('met');
    expect(v.rounds).toBe(3);
    expect(v.median).toBeCloseTo(5_300 / 9_800, 10);
    expect(v.min).toBeCloseTo(5_000 / 10_400, 10);
    expect(v.max).toBeCloseTo(5_600 / 10_000, 10);
    expect(v.reasons).toEqual([]);
  });

  it('the same rounds below the target are not met, not void', () => {
    const v = judge({ better: 'higher', target: 0.8, baselineIsCeiling: true, rounds: pairs([5_600, 5_000, 5_300], durable) });
    expect(v.status).toBe('not met');
  });

  it('a no-op ceiling below the durable ceiling voids the goal and says so', () => {
    const slowNoop = [5_071, 6_000, 5_500];
    const fastDurable = [7_110, 7_000, 7_200];
    const v = judge({
      better: 'higher',
      target: 0.5,
      baselineIsCeiling: true,
      rounds: pairs([3_000, 3_100, 2_900], slowNoop),
      orders: [{ upper: 'bare fastify', lower: 'bare fastify + fdatasync', upperRounds: slowNoop, lowerRounds: fastDurable }],
    });
    expect(v.status).toBe('void');
    expect(v.reasons.join(' ')).toMatch(/ceilings out of order: bare fastify \(5500\) below bare fastify \+ fdatasync \(7110\)/);
    // The ratio is still reported for the record, but no verdict is drawn from it.
    expect(v.median).not.toBeNull();
  });

  it('a bare server below the service voids the goal', () => {
    const v = judge({ better: 'higher', target: 0.9, baselineIsCeiling: true, rounds: pairs([40_000, 41_000, 39_000], [38_000, 37_000, 38_500]) });
    expect(v.status).toBe('void');
    expect(v.reasons.join(' ')).toMatch(/ceiling below the service/);
  });

  it('a peer that is not a ceiling may be beaten', () => {
    const v = judge({ better: 'higher', target: 1, rounds: pairs([2_100, 2_000, 2_200], [1_900, 1_950, 2_000]) });
    expect(v.status).toBe('met');
  });

  it('rounds spread past the bound void the goal with their range', () => {
    const v = judge({ better: 'higher', target: 0.5, rounds: pairs([3_000, 6_000, 9_000], [10_000, 10_000, 10_000]) });
    expect(relativeSpread(v.ratios)!).toBeGreaterThan(SPREAD_BOUND);
    expect(v.status).toBe('void');
    expect(v.reasons.join(' ')).toMatch(/rounds spread 0\.3-0\.9x, 100% of the median, past the 50% bound/);
  });

  it('an absolute bound says its spread in its own unit', () => {
    const v = judge({ better: 'lower', target: 1000, unit: ' ms', rounds: pairs([3_956, 5_096, 6_618], [1, 1, 1]) });
    expect(v.status).toBe('void');
    expect(v.reasons.join(' ')).toContain('rounds spread 3960-6620 ms, 52% of the median');
  });

  it('an absolute bound met by every round is not voided by rounds far apart below it: the spread counts against the bound', () => {
    const v = judge({ better: 'lower', target: 50, unit: ' ms', absolute: true, rounds: pairs([2, 9, 5], [1, 1, 1]) });
    expect(relativeSpread([2, 9, 5])).toBeCloseTo(7 / 5, 10);
    expect(relativeSpread([2, 9, 5], 50)).toBeCloseTo(7 / 50, 10);
    expect(v).toMatchObject({ status: 'met', median: 5, min: 2, max: 9, reasons: [] });
  });

  it('an absolute bound whose rounds straddle it by more than the bound is void, and says against what', () => {
    const v = judge({ better: 'lower', target: 50, unit: ' ms', absolute: true, rounds: pairs([24, 35, 186], [1, 1, 1]) });
    expect(v.status).toBe('void');
    expect(v.reasons.join(' ')).toContain('rounds spread 24-186 ms, 324% of the 50 ms bound, past the 50% bound');
  });

  it('an absolute bound far below its rounds measures their spread against their median', () => {
    const v = judge({ better: 'lower', target: 1000, unit: ' ms', absolute: true, rounds: pairs([3_681, 4_023, 5_050], [1, 1, 1]) });
    expect(v.status).toBe('not met');
    const wide = judge({ better: 'lower', target: 1000, unit: ' ms', absolute: true, rounds: pairs([3_956, 5_096, 6_618], [1, 1, 1]) });
    expect(wide.reasons.join(' ')).toContain('52% of the median');
  });

  it('fewer rounds than needed void the goal', () => {
    const v = judge({ better: 'higher', target: 0.5, rounds: pairs([6_000, 6_100], [10_000, 10_000]) });
    expect(v.status).toBe('void');
    expect(v.reasons).toContain(`2 paired rounds, ${MIN_ROUNDS} needed`);
  });

  it('judges a lower-is-better goal (latency, CPU) against its bound, 4 rounds by the mean of the middle two', () => {
    const v = judge({ better: 'lower', target: 1.2, rounds: pairs([360, 380, 400, 420], [300, 300, 300, 300]) });
    expect(v.median).toBeCloseTo(1.3, 10);
    expect(v.status).toBe('not met');
    const under = judge({ better: 'lower', target: 20, rounds: pairs([18, 19, 17, 16], [1, 1, 1, 1]) });
    expect(under).toMatchObject({ status: 'met', median: 17.5 });
  });

  it('a round without a figure on either side does not count, and a failed self-check voids', () => {
    const v = judge({ better: 'higher', target: 0.5, rounds: [{ value: 6_000, baseline: 10_000 }, { value: null, baseline: 10_000 }, { value: 6_000, baseline: 0 }] });
    expect(v.rounds).toBe(1);
    expect(v.status).toBe('void');
    const failed = judge({ better: 'higher', target: 0.5, rounds: pairs([6_000, 6_000, 6_000], [10_000, 10_000, 10_000]), failedChecks: ['service (json file)'] });
    expect(failed.status).toBe('void');
    expect(failed.reasons).toContain('a self-check of service (json file) failed');
  });
});
