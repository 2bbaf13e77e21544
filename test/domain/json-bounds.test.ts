import { describe, expect, it } from 'vitest';
import { JSON_BOUNDS, jsonBoundsProblem, RESULT_BOUNDS } from '../../src/domain/json-bounds.js';

/** Arrays nested `levels` deep, built without recursion (so the test can go deeper than any stack). */
function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

describe('jsonBoundsProblem', () => {
  it('takes values within both bounds, scalars included', () => {
    for (const value of [null, 1, 'text', true, {}, [], { a: [1, { b: null }] }, nestedArrays(JSON_BOUNDS.maxDepth)]) {
      expect(jsonBoundsProblem(value, 'The value')).toBeNull();
    }
  });

  it('names the depth bound one level past it, counting arrays and objects alike', () => {
    expect(jsonBoundsProblem(nestedArrays(JSON_BOUNDS.maxDepth + 1), 'The value')).toEqual({
      bound: 'depth',
      message: 'The value nests deeper than 64 levels of arrays and objects',
    });
    let mixed: unknown = 'leaf';
    for (let i = 0; i < JSON_BOUNDS.maxDepth + 1; i++) mixed = i % 2 === 0 ? { next: mixed } : [mixed];
    expect(jsonBoundsProblem(mixed, 'The value')?.bound).toBe('depth');
  });

  it('checks a value two hundred thousand levels deep without overflowing its own stack', () => {
    const deep = nestedArrays(200_000);
    expect(() => JSON.stringify(deep)).toThrow(RangeError);
    expect(jsonBoundsProblem(deep, 'The value')?.bound).toBe('depth');
  });

  it('names the node bound: every value counts, the outermost included', () => {
    const within = Array.from({ length: JSON_BOUNDS.maxNodes - 1 }, () => 0);
    expect(jsonBoundsProblem(within, 'The value')).toBeNull();
    expect(jsonBoundsProblem([...within, 0], 'The value')).toEqual({ bound: 'nodes', message: 'The value holds more than 100000 values' });
    expect(jsonBoundsProblem({ a: within.slice(1), b: 'x' }, 'The value')?.bound).toBe('nodes');
  });

  it('holds results to the depth only: a long list is a result, a deep one is not', () => {
    expect(jsonBoundsProblem(Array.from({ length: 300_000 }, (_, i) => i), 'The result', RESULT_BOUNDS)).toBeNull();
    expect(jsonBoundsProblem(nestedArrays(65), 'The result', RESULT_BOUNDS)?.bound).toBe('depth');
  });
});
