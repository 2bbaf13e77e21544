import { lowerBound } from './lower-bound.js';

/**
 * The ready queue of the in-memory model: run ids ordered by seq, so a claim walks candidates in
 * admission order without scanning every run. Most inserts land at the end (new admissions
 * have the highest seq) and most removals at the front (the oldest run is claimed first): the
 * front is a start offset, so neither shifts the array; the removed head is cut off in one splice
 * once it is as long as the live part. A run sent back to ready keeps its seq and is placed by
 * binary search.
 */
export class ReadyIndex {
  private readonly seqs: number[] = [];
  private readonly runIds: string[] = [];
  /** Entries before this index have been removed. */
  private head = 0;

  get size(): number {
    return this.seqs.length - this.head;
  }

  add(seq: number, runId: string): void {
    const at = lowerBound(this.seqs, seq, this.head);
    if (at < this.seqs.length && this.seqs[at] === seq) {
      this.runIds[at] = runId;
      return;
    }
    if (at === this.seqs.length) {
      this.seqs.push(seq);
      this.runIds.push(runId);
      return;
    }
    if (at === this.head && this.head > 0) {
      // Older than every queued run: reuse the slot just before the live part.
      this.head--;
      this.seqs[this.head] = seq;
      this.runIds[this.head] = runId;
      return;
    }
    this.seqs.splice(at, 0, seq);
    this.runIds.splice(at, 0, runId);
  }

  remove(seq: number): void {
    const at = lowerBound(this.seqs, seq, this.head);
    if (at >= this.seqs.length || this.seqs[at] !== seq) return;
    if (at === this.head) {
      this.head++;
      this.trimHead();
      return;
    }
    this.seqs.splice(at, 1);
    this.runIds.splice(at, 1);
  }

  /** Run ids from the oldest admission to the newest. */
  *inOrder(): IterableIterator<string> {
    for (let i = this.head; i < this.runIds.length; i++) yield this.runIds[i]!;
  }

  private trimHead(): void {
    if (this.head < this.seqs.length - this.head) return;
    this.seqs.splice(0, this.head);
    this.runIds.splice(0, this.head);
    this.head = 0;
  }
}
