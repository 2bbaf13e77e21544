import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/store/deep-freeze.js';
import { jsonOver } from '../../src/store/json-over.js';

/** What the store would hand out after a JSON round trip: the answer jsonOver must equal exactly. */
const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function check(before: unknown, next: unknown): unknown {
  const text = JSON.stringify(next);
  const out = jsonOver(before, next, text);
  // toStrictEqual: an `undefined` property kept, or -0 for 0, fails where toEqual would pass.
  expect(out).toStrictEqual(roundTrip(next));
  expect(Object.is(out, next)).toBe(false);
  return out;
}

const stored = () =>
  deepFreeze(
    roundTrip({
      runId: 'r1',
      seq: 7,
      status: 'running',
      payload: { idempotencyKey: 'k', nested: { list: [1, 'two', null, { three: 3 }] } },
      events: [
        { seq: 1, kind: 'queue', name: 'admitted', tx: 11 },
        { seq: 2, kind: 'execution', name: 'started', tx: 12 },
      ],
      result: null,
    }) as Record<string, unknown> & { events: unknown[]; payload: unknown },
  );

describe('jsonOver: a record as its JSON round trip returns it', () => {
  it('shares the parts of the record read back that the new record still holds, and copies the rest', () => {
    const before = stored();
    const next = {
      ...before,
      status: 'success',
      result: { files: 3, names: ['a', 'b'], detail: undefined },
      events: [...before.events, { seq: 3, kind: 'execution', name: 'succeeded', detail: undefined }],
      error: undefined,
    };
    const out = check(before, next) as typeof next;
    expect(out.payload).toBe(before.payload);
    expect(out.events[0]).toBe(before.events[0]);
    expect(out.events).not.toBe(next.events);
    expect(out.result).not.toBe(next.result);
    expect(Object.keys(out)).toEqual(Object.keys(roundTrip(next) as object));
  });

  it('gives the parse itself when a new part holds a value JSON changes', () => {
    const before = stored();
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const cases: Record<string, unknown> = {
      date: new Date('2026-01-02T03:04:05.000Z'),
      map: new Map([['a', 1]]),
      set: new Set([1]),
      instance: new Point(1, 2),
      withToJson: { toJSON: () => 'replaced' },
      undefinedInArray: [1, undefined, 3],
      hole: [1, , 3], // eslint-disable-line no-sparse-arrays
      nan: Number.NaN,
      infinity: Number.POSITIVE_INFINITY,
      negativeZero: -0,
      fn: () => 1,
      symbol: Symbol('s'),
      nullPrototype: Object.assign(Object.create(null) as object, { a: 1 }),
      protoKey: JSON.parse('{"__proto__": {"polluted": true}, "b": 2}') as unknown,
      boxed: Object('text') as unknown,
    };
    for (const [name, value] of Object.entries(cases)) {
      const next = { ...before, result: { [name]: value, deep: [{ inner: value }] } };
      check(before, next);
    }
    // -0 in place of a stored 0 is written 0.
    const zero = deepFreeze(roundTrip({ n: 0, list: [0] })) as { n: number; list: number[] };
    check(zero, { ...zero, n: -0, list: [-0] });
  });

  it('copies a new record whole when there is nothing read back (an admission)', () => {
    const fresh = { runId: 'r2', seq: 1, payload: { a: [1, 2, { b: 'c' }] }, approval: { reason: undefined, note: null } };
    const out = check(null, fresh) as typeof fresh;
    expect(out.payload).not.toBe(fresh.payload);
    expect(out.payload.a).not.toBe(fresh.payload.a);
  });
});
