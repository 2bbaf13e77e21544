import { describe, expect, it } from 'vitest';
import { BoundedLabel, OTHER_LABEL } from '../../src/metrics/bounded-label.js';

describe('a bounded label grown by the service', () => {
  it('admits new values up to its cap; past it, and for other, a value stays under other', () => {
    const label = new BoundedLabel(['a', 'b']);
    expect(label.admit(['b', 'c', OTHER_LABEL, 'd', 'e'], 4)).toEqual(['c', 'd']);
    expect(['a', 'c', 'd', 'e'].map((v) => label.of(v))).toEqual(['a', 'c', 'd', OTHER_LABEL]);
    expect(label.values()).toEqual(['a', 'b', 'c', 'd', OTHER_LABEL]);
  });
});
