import type { Clock } from '../../src/clock.js';

/** A clock standing at `iso` until the test `set`s it to another time. */
export function fixedClock(iso: string): Clock & { set(iso: string): void } {
  let now = new Date(iso);
  return { now: () => new Date(now), set: (next) => (now = new Date(next)) };
}

/** A clock starting at `start` that the test moves forward by `advance(ms)`. */
export function manualClock(start = '2026-03-01T10:00:00.000Z') {
  let now = Date.parse(start);
  const clock: Clock & { advance(ms: number): void } = { now: () => new Date(now), advance: (ms) => (now += ms) };
  return clock;
}

/** A clock the test moves by hand: `advance(ms)`, or set `current` directly. */
export class TestClock {
  constructor(public current: Date) {}
  now = () => new Date(this.current.getTime());
  advance(ms: number) {
    this.current = new Date(this.current.getTime() + ms);
  }
}
