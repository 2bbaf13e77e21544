import { describe, expect, it } from 'vitest';
import { FixedWindowCounter } from '../../src/http/window-counter.js';

const T = 1_700_000_000_000;

describe('fixed-window counter', () => {
  it('counts a subject within its window and starts a new window when it ends', () => {
    const counter = new FixedWindowCounter(100);
    expect(counter.increment('abuse-guard|ip:10.0.0.1', 60_000, T)).toEqual({ count: 1, resetAt: T + 60_000 });
    expect(counter.increment('abuse-guard|ip:10.0.0.1', 60_000, T + 59_999)).toEqual({ count: 2, resetAt: T + 60_000 });
    expect(counter.increment('abuse-guard|ip:10.0.0.2', 60_000, T + 10)).toEqual({ count: 1, resetAt: T + 60_010 });
    // The window ends exactly at resetAt.
    expect(counter.increment('abuse-guard|ip:10.0.0.1', 60_000, T + 60_000)).toEqual({ count: 1, resetAt: T + 120_000 });
  });

  it('stays within its bound by dropping the subject whose window started first', () => {
    const counter = new FixedWindowCounter(2);
    counter.increment('a', 1000, T);
    counter.increment('b', 1000, T + 1);
    counter.increment('a', 1000, T + 2000); // a restarts: now the newest window
    counter.increment('a', 1000, T + 2001);
    counter.increment('c', 1000, T + 2002); // full: b (oldest window) goes
    expect(counter.size).toBe(2);
    expect(counter.increment('a', 1000, T + 2003).count).toBe(3);
    expect(counter.increment('b', 1000, T + 2004).count).toBe(1);
  });
});
