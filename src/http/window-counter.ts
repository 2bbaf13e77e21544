/** One subject's fixed window; updated in place, so a request allocates nothing once its subject is known. */
export interface CountedWindow {
  count: number;
  resetAt: number;
}

/**
 * Fixed-window counters of this process, bounded in subjects: a request is one map lookup and an
 * increment. A window that restarts moves to the end of the map, so the map is ordered by window
 * start; when it is full the first subject (the oldest window, usually expired) is dropped. A
 * dropped subject starts a fresh window, as it would after an eviction from an LRU.
 */
export class FixedWindowCounter {
  private readonly windows = new Map<string, CountedWindow>();

  constructor(private readonly maxSubjects: number) {}

  increment(key: string, windowMs: number, now: number): CountedWindow {
    let window = this.windows.get(key);
    if (window === undefined) {
      if (this.windows.size >= this.maxSubjects) this.dropOldest();
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    } else if (window.resetAt <= now) {
      window.count = 0;
      window.resetAt = now + windowMs;
      this.windows.delete(key);
      this.windows.set(key, window);
    }
    window.count += 1;
    return window;
  }

  get size(): number {
    return this.windows.size;
  }

  private dropOldest(): void {
    const oldest = this.windows.keys().next();
    if (!oldest.done) this.windows.delete(oldest.value);
  }
}
