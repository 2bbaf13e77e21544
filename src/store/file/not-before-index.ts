/**
 * The ready runs of the in-memory model that wait for a not-before time (trailing debounces),
 * ordered by that time, then by seq: a claim reads the due ones from the front and stops at the
 * first that is not due, so runs still waiting cost it nothing (docs/queue.md). A time that does
 * not parse is never due, as `isDue` has it: it sorts last.
 */
export class NotBeforeIndex {
  private readonly dueMs: number[] = [];
  private readonly seqs: number[] = [];
  private readonly runIds: string[] = [];

  get size(): number {
    return this.runIds.length;
  }

  add(run: { runId: string; seq: number; notBefore: string }): void {
    const due = dueMsOf(run.notBefore);
    const at = this.lowerBound(due, run.seq);
    if (at < this.seqs.length && this.dueMs[at] === due && this.seqs[at] === run.seq) {
      this.runIds[at] = run.runId;
      return;
    }
    this.dueMs.splice(at, 0, due);
    this.seqs.splice(at, 0, run.seq);
    this.runIds.splice(at, 0, run.runId);
  }

  remove(run: { seq: number; notBefore: string }): void {
    const due = dueMsOf(run.notBefore);
    const at = this.lowerBound(due, run.seq);
    if (at >= this.seqs.length || this.dueMs[at] !== due || this.seqs[at] !== run.seq) return;
    this.dueMs.splice(at, 1);
    this.seqs.splice(at, 1);
    this.runIds.splice(at, 1);
  }

  /** Run ids whose not-before time is at or before `nowMs`, the earliest first. */
  *dueBy(nowMs: number): IterableIterator<string> {
    for (let i = 0; i < this.runIds.length && this.dueMs[i]! <= nowMs; i++) yield this.runIds[i]!;
  }

  /** The first position whose (due, seq) is not before the one given. */
  private lowerBound(due: number, seq: number): number {
    let low = 0;
    let high = this.runIds.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.dueMs[mid]! < due || (this.dueMs[mid] === due && this.seqs[mid]! < seq)) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function dueMsOf(notBefore: string): number {
  const ms = Date.parse(notBefore);
  return Number.isNaN(ms) ? Number.POSITIVE_INFINITY : ms;
}
