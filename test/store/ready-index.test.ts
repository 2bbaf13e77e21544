import { describe, expect, it } from 'vitest';
import { ReadyIndex } from '../../src/store/file/ready-index.js';
import { BoundedLog } from '../../src/store/file/bounded-log.js';

/** A reference ready queue: a sorted array of [seq, runId], rebuilt on every change. */
class SortedReference {
  entries: Array<[number, string]> = [];
  add(seq: number, runId: string): void {
    this.entries = [...this.entries.filter(([s]) => s !== seq), [seq, runId] as [number, string]].sort((a, b) => a[0] - b[0]);
  }
  remove(seq: number): void {
    this.entries = this.entries.filter(([s]) => s !== seq);
  }
}

/** Deterministic pseudo-random numbers, so a failure replays. */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

describe('ReadyIndex', () => {
  it('keeps seq order through claims at the front, admissions at the end and runs sent back', () => {
    const index = new ReadyIndex();
    const reference = new SortedReference();
    const random = lcg(7);
    let nextSeq = 1;
    for (let step = 0; step < 5_000; step++) {
      const roll = random();
      if (roll < 0.45) {
        const seq = nextSeq++;
        index.add(seq, `run-${seq}`);
        reference.add(seq, `run-${seq}`);
      } else if (roll < 0.85) {
        // The claim path: the oldest ready run leaves.
        const oldest = reference.entries[0];
        if (oldest === undefined) continue;
        index.remove(oldest[0]);
        reference.remove(oldest[0]);
      } else if (roll < 0.95) {
        // A run from the middle leaves (cancelled, approved elsewhere), or one comes back (retry).
        const seq = 1 + Math.floor(random() * nextSeq);
        if (random() < 0.5) {
          index.remove(seq);
          reference.remove(seq);
        } else {
          index.add(seq, `back-${seq}`);
          reference.add(seq, `back-${seq}`);
        }
      } else {
        // A run older than every queued one comes back to the front.
        const front = reference.entries[0]?.[0] ?? nextSeq;
        const seq = Math.max(1, front - 1 - Math.floor(random() * 3));
        index.add(seq, `front-${seq}`);
        reference.add(seq, `front-${seq}`);
      }
      expect(index.size).toBe(reference.entries.length);
      if (step % 97 === 0) expect([...index.inOrder()]).toEqual(reference.entries.map(([, runId]) => runId));
    }
    expect([...index.inOrder()]).toEqual(reference.entries.map(([, runId]) => runId));
  });

  it('ignores the removal of a seq it does not hold and replaces the run id of a seq it does', () => {
    const index = new ReadyIndex();
    index.add(2, 'a');
    index.add(4, 'b');
    index.remove(3);
    index.remove(9);
    index.add(4, 'c');
    expect([...index.inOrder()]).toEqual(['a', 'c']);
    index.remove(2);
    index.remove(2);
    expect([...index.inOrder()]).toEqual(['c']);
    expect(index.size).toBe(1);
  });
});

describe('BoundedLog', () => {
  it('keeps the newest items, oldest first, however they were trimmed', () => {
    const log = new BoundedLog<number>([1, 2, 3]);
    const reference = [1, 2, 3];
    const random = lcg(11);
    for (let i = 4; i < 3_000; i++) {
      const keep = 1 + Math.floor(random() * 50);
      log.push(i, keep);
      reference.push(i);
      if (reference.length > keep) reference.splice(0, reference.length - keep);
      expect(log.length).toBe(reference.length);
      if (i % 31 === 0) {
        expect(log.toArray()).toEqual(reference);
        expect(log.slice(1, 4)).toEqual(reference.slice(1, 4));
        expect(log.slice(reference.length - 2, reference.length + 5)).toEqual(reference.slice(-2));
      }
    }
  });

  it('keeps nothing when keep is zero', () => {
    const log = new BoundedLog<string>();
    log.push('a', 0);
    log.push('b', 0);
    expect(log.length).toBe(0);
    expect(log.toArray()).toEqual([]);
  });
});
