/**
 * The ready queue of the in-memory model: run ids ordered by seq, so a claim walks candidates in
 * admission order without scanning every run. Most inserts land at the end (new admissions
 * have the highest seq); a run sent back to ready keeps its seq and is placed by binary search.
 */
export class ReadyIndex {
  private readonly seqs: number[] = [];
  private readonly runIds: string[] = [];

  get size(): number {
    return this.seqs.length;
  }

  add(seq: number, runId: string): void {
    const at = this.position(seq);
    if (this.seqs[at] === seq) {
      this.runIds[at] = runId;
      return;
    }
    this.seqs.splice(at, 0, seq);
    this.runIds.splice(at, 0, runId);
  }

  remove(seq: number): void {
    const at = this.position(seq);
    if (this.seqs[at] !== seq) return;
    this.seqs.splice(at, 1);
    this.runIds.splice(at, 1);
  }

  /** Run ids from the oldest admission to the newest. */
  *inOrder(): IterableIterator<string> {
    for (const runId of this.runIds) yield runId;
  }

  /** First index whose seq is >= `seq`. */
  private position(seq: number): number {
    let low = 0;
    let high = this.seqs.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.seqs[mid]! < seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
