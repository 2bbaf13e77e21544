import { lowerBound } from './lower-bound.js';

/**
 * Which runs were written with new events at or after a given stamp, for the file store's change
 * feed: one entry (stamp, run id) per write that appended events, in stamp order (stamps are
 * journal numbers, so entries arrive sorted). A feed reader near the head looks at the few
 * entries past its cursor instead of every run in memory.
 *
 * Entries of runs written again or deleted since stay behind; once they outnumber the runs the
 * index is rebuilt from the runs themselves (amortized O(1) per write).
 */
export class RunEventIndex {
  private stamps: number[] = [];
  private runIds: string[] = [];

  /** The run was stored with events stamped `tx` (the highest so far). */
  note(runId: string, tx: number): void {
    this.stamps.push(tx);
    this.runIds.push(runId);
  }

  /** Ids of runs with an entry stamped `tx` or later (a run may come more than once). */
  *runsSince(tx: number): Generator<string> {
    for (let i = lowerBound(this.stamps, tx); i < this.stamps.length; i++) yield this.runIds[i]!;
  }

  get size(): number {
    return this.stamps.length;
  }

  /** Rebuilds from each live run's newest stamp when stale entries dominate. */
  compactIfStale(runCount: number, lastTxOfRuns: () => Iterable<[string, number]>): void {
    if (this.stamps.length <= 2 * runCount + 1024) return;
    this.rebuild(lastTxOfRuns());
  }

  rebuild(entries: Iterable<[string, number]>): void {
    const sorted = [...entries].filter(([, tx]) => tx > 0).sort((a, b) => a[1] - b[1]);
    this.stamps = sorted.map(([, tx]) => tx);
    this.runIds = sorted.map(([runId]) => runId);
  }
}
