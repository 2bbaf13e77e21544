import { describe, expect, it } from 'vitest';
import { maxOverlap, parseSpans } from '../../bench/lib/handler-log.js';

/** The caps row's count: the most executions of one key that overlapped, from the handler's span log. */
describe('overlapping executions per key, from the handler span log', () => {
  const keyOf = new Map([
    ['a1', 'a'],
    ['a2', 'a'],
    ['a3', 'a'],
    ['b1', 'b'],
  ]);

  it('finds the peak per key; one run ending as the next begins is no overlap', () => {
    const spans = parseSpans(['a1 0 10', 'a2 5 20', 'a3 10 30', 'b1 0 100', 'stray 0 100', ''].join('\n'));
    expect(spans).toHaveLength(5);
    const peaks = maxOverlap(spans, (runId) => keyOf.get(runId));
    expect(peaks.get('a')).toBe(2);
    expect(peaks.get('b')).toBe(1);
    expect(peaks.has('undefined')).toBe(false);
  });

  it('sees three at once when a third starts before either of two ends: a broken cap fails the row', () => {
    const spans = parseSpans('a1 0 10\na2 1 10\na3 9.5 12\n');
    expect(maxOverlap(spans, (runId) => keyOf.get(runId)).get('a')).toBe(3);
  });
});
