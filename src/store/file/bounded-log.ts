/**
 * An append-only list that keeps only its newest `keep` items (the telemetry and milestone
 * collections). Trimming advances a start offset instead of shifting the whole array on every
 * append; the dropped head is cut off in one splice once it is as long as the live part, so an
 * append costs O(1) amortized however large `keep` is.
 */
export class BoundedLog<T> {
  private readonly items: T[];
  private start = 0;

  constructor(items: T[] = []) {
    this.items = items;
  }

  get length(): number {
    return this.items.length - this.start;
  }

  push(item: T, keep: number): void {
    this.items.push(item);
    const excess = this.length - Math.max(0, keep);
    if (excess > 0) this.start += excess;
    if (this.start > 0 && this.start >= this.length) {
      this.items.splice(0, this.start);
      this.start = 0;
    }
  }

  /** Items `from` (inclusive) to `to` (exclusive), counted from the oldest kept item. */
  slice(from: number, to: number): T[] {
    const begin = this.start + Math.max(0, from);
    return this.items.slice(begin, Math.max(begin, this.start + to));
  }

  /** The kept items, oldest first, as a new array. */
  toArray(): T[] {
    return this.items.slice(this.start);
  }
}
