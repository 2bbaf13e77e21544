import type { RunLogLine } from '../domain/run-log-line.js';

/** One kept line as the log route and the store show it. */
export type KeptLine = Pick<RunLogLine, 'at' | 'stream' | 'line'>;

/** What a line costs against the byte bound: its UTF-8 bytes and its line break. */
export const lineCost = (line: string): number => Buffer.byteLength(line, 'utf8') + 1;

/**
 * The newest lines of one attempt within a line count and a byte bound, whichever is reached
 * first. Older lines leave from the front and are counted in `truncated`. A queue with a moving
 * head: dropping from the front is O(1), and the array is compacted once half of it is dead.
 */
export class BoundedLines {
  private items: KeptLine[] = [];
  private costs: number[] = [];
  private head = 0;
  private bytesKept = 0;
  private dropped = 0;

  constructor(
    private readonly maxLines: number,
    private readonly maxBytes: number,
  ) {}

  push(line: KeptLine): void {
    const cost = lineCost(line.line);
    this.items.push(line);
    this.costs.push(cost);
    this.bytesKept += cost;
    while (this.length > 0 && (this.length > this.maxLines || this.bytesKept > this.maxBytes)) this.dropOldest();
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.costs = this.costs.slice(this.head);
      this.head = 0;
    }
  }

  get length(): number {
    return this.items.length - this.head;
  }

  get bytes(): number {
    return this.bytesKept;
  }

  /** Lines dropped from the front so far. */
  get truncated(): number {
    return this.dropped;
  }

  lines(): KeptLine[] {
    return this.items.slice(this.head);
  }

  private dropOldest(): void {
    this.bytesKept -= this.costs[this.head]!;
    this.head += 1;
    this.dropped += 1;
  }
}
