import { MAX_PRIORITY } from '../domain/run-record.js';
import { isoMs } from './iso-ms.js';

/**
 * The order claims take ready runs in, shared by every driver (docs/queue.md). The drivers find
 * the candidates (the oldest few ready runs of each concurrency key and priority) and when each
 * key was last claimed; the choice among them is made here, so all stores order alike.
 *
 * 1. Highest effective priority first. A run's effective priority is its priority plus one level
 *    for every PRIORITY_AGING_SECONDS it has waited since admission, up to MAX_PRIORITY: a
 *    waiting run is never passed over forever by a stream of higher priority work.
 * 2. Among equal effective priorities, the concurrency key claimed least recently first (a key
 *    never claimed before goes first), so keys take turns: a key with 10,000 waiting runs and a
 *    key with one alternate. Unkeyed runs share one key, the empty one.
 * 3. Then the oldest admission (lowest seq): oldest first within a key.
 */

/** Waiting this long raises a run's effective priority by one level. */
export const PRIORITY_AGING_SECONDS = 60;

/** The key unkeyed runs share in fairness and in the stores' key columns. */
export const UNKEYED = '';

/** A ready run as a claim weighs it: the few fields the order needs. */
export interface QueueCandidate {
  runId: string;
  seq: number;
  type: string;
  /** UNKEYED for a run without a concurrency key. */
  key: string;
  priority: number;
  /** Where aging counts from (ISO 8601): admission, or the not-before time of a run that had one (agingFrom). */
  createdAt: string;
}

/** Where a run's waiting counts from: its admission, or its not-before time when that is later (it could not be claimed before). */
export function agingFrom(run: { createdAt: string; notBefore?: string | null }): string {
  return run.notBefore != null && run.notBefore > run.createdAt ? run.notBefore : run.createdAt;
}

/** Whether a claim at `nowMs` may take the run: it has no not-before time, or that time has come. */
export function isDue(run: { notBefore?: string | null }, nowMs: number): boolean {
  return run.notBefore == null || Date.parse(run.notBefore) <= nowMs;
}

/**
 * Rows the stores' candidate reads returned since the process started. A probe, not state: tests
 * read it to see that a claim reads a bounded set, never every ready run (docs/queue.md).
 */
export const candidateReads = { rows: 0 };

export function noteCandidateReads(rows: number): void {
  candidateReads.rows += rows;
}

export function effectivePriority(candidate: Pick<QueueCandidate, 'priority' | 'createdAt'>, nowMs: number): number {
  const waitedMs = Math.max(0, nowMs - isoMs(candidate.createdAt));
  const aged = candidate.priority + Math.floor(waitedMs / (PRIORITY_AGING_SECONDS * 1000));
  return Number.isFinite(aged) ? Math.min(MAX_PRIORITY, aged) : candidate.priority;
}

/**
 * Picks up to `max` candidates in claim order. `lastClaimedAt` holds, per key, the start time of
 * its most recently claimed run (absent or null: never). `admit` is asked about each candidate in
 * that order and may refuse it (its type or a bucket is full, counting the picks before it); a
 * refused candidate is dropped and the order goes on. A key picked here goes behind every other
 * key for the next pick, so one batch takes turns across keys too.
 */
export function pickFairly(
  candidates: readonly QueueCandidate[],
  lastClaimedAt: ReadonlyMap<string, string | null>,
  nowMs: number,
  max: number,
  admit: (candidate: QueueCandidate) => boolean = () => true,
): QueueCandidate[] {
  // One queue per key; `head` is its next candidate. A claim of one run among 100 keys builds and
  // scans these once, so they are plain arrays, not maps looked up again at every comparison.
  const byKey = new Map<string, KeyQueue>();
  for (const candidate of candidates) {
    let queue = byKey.get(candidate.key);
    if (queue === undefined) byKey.set(candidate.key, (queue = { entries: [], head: 0, turn: Number.NEGATIVE_INFINITY }));
    queue.entries.push({ candidate, effective: effectivePriority(candidate, nowMs) });
  }
  const live: KeyQueue[] = [];
  for (const [key, queue] of byKey) {
    if (queue.entries.length > 1) queue.entries.sort((a, b) => b.effective - a.effective || a.candidate.seq - b.candidate.seq);
    const last = lastClaimedAt.get(key);
    const at = last === null || last === undefined ? Number.NEGATIVE_INFINITY : isoMs(last);
    queue.turn = Number.isNaN(at) ? Number.NEGATIVE_INFINITY : at;
    live.push(queue);
  }
  // Picks of this batch come after every stored claim time, in the order they were made.
  let batchTurn = Number.MAX_SAFE_INTEGER / 2;
  const picked: QueueCandidate[] = [];
  while (picked.length < max && live.length > 0) {
    // `before` is a total order (seqs differ), so the scan's order does not change the pick.
    let best = 0;
    for (let i = 1; i < live.length; i++) {
      const queue = live[i]!;
      const leader = live[best]!;
      if (before(queue.entries[queue.head]!, queue.turn, leader.entries[leader.head]!, leader.turn)) best = i;
    }
    const queue = live[best]!;
    const { candidate } = queue.entries[queue.head++]!;
    if (queue.head === queue.entries.length) {
      live[best] = live[live.length - 1]!;
      live.pop();
    }
    if (!admit(candidate)) continue;
    picked.push(candidate);
    queue.turn = batchTurn++;
  }
  return picked;
}

/** One key's candidates in its own order, the next at `head`, and the key's turn (when it was last claimed). */
interface KeyQueue {
  entries: Array<{ candidate: QueueCandidate; effective: number }>;
  head: number;
  turn: number;
}

function before(
  a: { candidate: QueueCandidate; effective: number },
  aTurn: number,
  b: { candidate: QueueCandidate; effective: number },
  bTurn: number,
): boolean {
  if (a.effective !== b.effective) return a.effective > b.effective;
  if (aTurn !== bTurn) return aTurn < bTurn;
  return a.candidate.seq < b.candidate.seq;
}

/** The fairness key of a run record: its concurrency key, or UNKEYED. */
export function fairnessKey(run: { concurrencyKey?: string | null }): string {
  return run.concurrencyKey ?? UNKEYED;
}
