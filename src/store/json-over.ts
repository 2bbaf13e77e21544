/**
 * A record as a JSON round trip (`JSON.parse(JSON.stringify(next))`) returns it, built without
 * the parse where that is safe. A write's record is its mutator's answer over the record read
 * back (`before`, deep-frozen from JSON): most of it is `before`'s own parts, kept as they are,
 * and only what the mutator made is copied. A value JSON would change (a `Date`, a `Map`, an
 * object with `toJSON`, `undefined` in an array, a number that is not finite, -0) anywhere in the
 * new parts makes the caller parse the text after all: the answer is exactly the parse's.
 */

/** A new part holds a value JSON changes: the caller parses the record's text instead. */
export const NOT_PLAIN = Symbol('not-plain');

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** `value` as JSON reads it back, sharing what is `prev` (the same reference); NOT_PLAIN where that needs the parse. */
function over(prev: unknown, value: unknown): unknown {
  // A part of `before` itself: parsed from JSON already (primitives go on, for -0 against 0).
  if (value === prev && typeof value === 'object') return value;
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : NOT_PLAIN;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        if (Object.getPrototypeOf(value) !== Array.prototype) return NOT_PLAIN;
        const before = Array.isArray(prev) ? (prev as unknown[]) : [];
        const out = new Array<unknown>(value.length);
        for (let i = 0; i < value.length; i++) {
          // A hole or undefined is written as null: the parse's answer then differs from the value.
          if (!(i in value) || value[i] === undefined) return NOT_PLAIN;
          const item = over(before[i], value[i]);
          if (item === NOT_PLAIN) return NOT_PLAIN;
          out[i] = item;
        }
        return out;
      }
      if (!isPlainObject(value)) return NOT_PLAIN;
      const source = value as Record<string, unknown>;
      // Own only: a plain object inherits nothing from Object.prototype that JSON calls.
      if (Object.hasOwn(source, 'toJSON')) return NOT_PLAIN;
      const before = typeof prev === 'object' && prev !== null && !Array.isArray(prev) ? (prev as Record<string, unknown>) : {};
      const out: Record<string, unknown> = {};
      for (const key of Object.keys(source)) {
        const child = source[key];
        // JSON leaves such properties out.
        if (child === undefined) continue;
        if (key === '__proto__') return NOT_PLAIN;
        const item = over(before[key], child);
        if (item === NOT_PLAIN) return NOT_PLAIN;
        out[key] = item;
      }
      return out;
    }
    default:
      // undefined at the top, a function, a symbol, a bigint.
      return NOT_PLAIN;
  }
}

/**
 * `next` as `JSON.parse(text)` returns it, where `text` is `JSON.stringify(next)` and `before` a
 * deep-frozen value parsed from JSON: `before`'s parts that `next` still holds are shared, the
 * rest is copied; the parse itself where a new part holds a value JSON changes.
 */
export function jsonOver<T>(before: unknown, next: T, text: string): T {
  const out = over(before, next);
  return (out === NOT_PLAIN ? JSON.parse(text) : out) as T;
}
