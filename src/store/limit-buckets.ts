import { UNKEYED } from './fair-claims.js';
import type { ClaimOptions } from './types.js';
import type { LimitBucket } from '../domain/limit-bucket.js';
import type { RunRecord } from '../domain/run-record.js';

export type { LimitBucket } from '../domain/limit-bucket.js';

/** The fields of a run a bucket looks at; `key` is the fairness key (UNKEYED for none). */
export interface BucketRun {
  type: string;
  key: string;
}

/** Running runs of one (type, key), or starts of one (type, key) at one time, as a store counts them. */
export interface RunGroupCount extends BucketRun {
  n: number;
}
export interface RunStart extends BucketRun {
  atMs: number;
}

export function bucketMatches(bucket: LimitBucket, run: BucketRun): boolean {
  if (bucket.match.types !== undefined && !bucket.match.types.includes(run.type)) return false;
  // A key prefix never matches an unkeyed run, even the empty prefix.
  if (bucket.match.keyPrefix !== undefined && !(run.key !== UNKEYED && run.key.startsWith(bucket.match.keyPrefix))) return false;
  return true;
}

/** The longest rate window of the buckets (ms): how far back a claim reads starts; 0 when none has a rate. */
export function rateLookbackMs(buckets: readonly LimitBucket[]): number {
  return Math.max(0, ...buckets.map((bucket) => (bucket.rate ? bucket.rate.windowSeconds * 1000 : 0)));
}

/** Whether a claim counts anything: some type limit or bucket is configured (it then takes the limits lock on a shared store). */
export function isLimited(options: ClaimOptions): boolean {
  return Object.keys(options.typeLimits).length > 0 || (options.buckets?.length ?? 0) > 0;
}

/** The running runs by type, summed from counts by (type, key). */
export function runningByTypeOf(groups: readonly RunGroupCount[]): Map<string, number> {
  const byType = new Map<string, number>();
  for (const group of groups) byType.set(group.type, (byType.get(group.type) ?? 0) + group.n);
  return byType;
}

/** What a claim knows of the runs the limits count: running runs by (type, key), starts inside the longest rate window. */
export interface LimitUsage {
  running: readonly RunGroupCount[];
  started: readonly RunStart[];
}

/**
 * A claim's check of its picks, in claim order, against the per-type limits and every bucket:
 * each pick admitted counts toward what it matches for the picks after it (as running, and as a
 * start at `nowMs`). `refused` says whether one was turned away; `heldBy` names the first bucket
 * (or `type:<type>`) that would turn a run away now; `held` maps each run a bucket turned away to
 * every bucket that had no room for it (what the per-bucket wait metric counts, docs/metrics.md).
 */
export function claimGate(options: ClaimOptions, usage: LimitUsage, nowMs: number) {
  const buckets = options.buckets ?? [];
  const byType = new Map<string, number>();
  const bucketRunning = buckets.map(() => 0);
  const bucketPerKey = buckets.map(() => new Map<string, number>());
  const bucketStarts = buckets.map(() => 0);
  const count = (run: BucketRun, n: number) => {
    byType.set(run.type, (byType.get(run.type) ?? 0) + n);
    buckets.forEach((bucket, i) => {
      if (!bucketMatches(bucket, run)) return;
      bucketRunning[i]! += n;
      bucketPerKey[i]!.set(run.key, (bucketPerKey[i]!.get(run.key) ?? 0) + n);
    });
  };
  for (const group of usage.running) count(group, group.n);
  for (const start of usage.started) {
    buckets.forEach((bucket, i) => {
      if (bucket.rate && start.atMs > nowMs - bucket.rate.windowSeconds * 1000 && bucketMatches(bucket, start)) bucketStarts[i]!++;
    });
  }

  /** Whether bucket `i`, which matches the run, is at one of its caps for it. */
  function isFull(i: number, run: BucketRun): boolean {
    const bucket = buckets[i]!;
    if (bucket.concurrency !== undefined && bucketRunning[i]! >= bucket.concurrency) return true;
    if (bucket.perKey !== undefined && (bucketPerKey[i]!.get(run.key) ?? 0) >= bucket.perKey) return true;
    return bucket.rate !== undefined && bucketStarts[i]! >= bucket.rate.max;
  }

  /** The buckets the run matches that have no room for it now, in config order. */
  function fullBucketsFor(run: BucketRun): string[] {
    return buckets.flatMap((bucket, i) => (bucketMatches(bucket, run) && isFull(i, run) ? [bucket.name] : []));
  }

  function heldBy(run: BucketRun): string | null {
    const limit = options.typeLimits[run.type];
    if (limit !== undefined && (byType.get(run.type) ?? 0) >= limit) return `type:${run.type}`;
    return fullBucketsFor(run)[0] ?? null;
  }

  const gate = {
    refused: false,
    held: new Map<string, string[]>(),
    heldBy,
    admit: (run: BucketRun & { runId: string }): boolean => {
      if (heldBy(run) !== null) {
        gate.refused = true;
        const full = fullBucketsFor(run);
        if (full.length > 0) gate.held.set(run.runId, full);
        return false;
      }
      count(run, 1);
      buckets.forEach((bucket, i) => {
        if (bucket.rate && bucketMatches(bucket, run)) bucketStarts[i]!++;
      });
      return true;
    },
  };
  return gate;
}

/**
 * The run with `buckets` noted as holding its current attempt back (RunRecord.bucketHolds), or
 * null when it is no longer ready or already names them all: a run is written once per bucket
 * that holds an attempt, not once per claim that passes it over.
 */
export function withBucketHolds(run: RunRecord, buckets: readonly string[]): RunRecord | null {
  if (run.queueState !== 'ready') return null;
  const noted = run.bucketHolds?.attempt === run.attempt ? run.bucketHolds.buckets : [];
  const added = buckets.filter((name) => !noted.includes(name));
  if (added.length === 0) return null;
  return { ...run, bucketHolds: { attempt: run.attempt, buckets: [...noted, ...added] } };
}

/** The buckets that held this attempt of the run back at some claim (none when it never waited on one). */
export function bucketHoldsOf(run: RunRecord): readonly string[] {
  return run.bucketHolds?.attempt === run.attempt ? run.bucketHolds.buckets : [];
}

/** Ready and running runs of one (type, key), and when the oldest ready one was admitted: what `GET /api/queue` is built from. */
export interface QueueGroup {
  type: string;
  /** The fairness key: UNKEYED for unkeyed runs. */
  key: string;
  ready: number;
  running: number;
  /** createdAt of its oldest ready run; null when none is ready. */
  oldestReadyAt: string | null;
  /** Its ready runs by priority (stored priority, 1-5; only priorities with a ready run), the highest first. */
  readyByPriority: PriorityCount[];
  /** Of its ready runs, those whose not-before time (a trailing debounce's window end) has not come at the read's time. */
  notBefore: number;
}

/** Ready runs of one priority, and when the oldest of them was admitted. */
export interface PriorityCount {
  priority: number;
  ready: number;
  oldestReadyAt: string;
}

/** A store's count of ready and running runs by (type, key, priority): a row of its one grouped read. */
export interface QueueGroupRow {
  type: string;
  key: string;
  priority: number;
  ready: number;
  running: number;
  oldestReadyAt: string | null;
  /** Ready runs whose not-before time is after the read's time. */
  notBefore: number;
}

/** Rows by (type, key, priority) folded into the groups by (type, key) `GET /api/queue` reads, priorities kept for the ready runs. */
export function foldQueueGroups(rows: Iterable<QueueGroupRow>): QueueGroup[] {
  const groups = new Map<string, QueueGroup>();
  for (const row of rows) {
    const id = `${row.type}\u0000${row.key}`;
    let group = groups.get(id);
    if (group === undefined) groups.set(id, (group = { type: row.type, key: row.key, ready: 0, running: 0, oldestReadyAt: null, readyByPriority: [], notBefore: 0 }));
    group.running += row.running;
    group.notBefore += row.notBefore;
    if (row.ready === 0 || row.oldestReadyAt === null) continue;
    group.ready += row.ready;
    if (group.oldestReadyAt === null || row.oldestReadyAt < group.oldestReadyAt) group.oldestReadyAt = row.oldestReadyAt;
    const same = group.readyByPriority.find((entry) => entry.priority === row.priority);
    if (same === undefined) group.readyByPriority.push({ priority: row.priority, ready: row.ready, oldestReadyAt: row.oldestReadyAt });
    else {
      same.ready += row.ready;
      if (row.oldestReadyAt < same.oldestReadyAt) same.oldestReadyAt = row.oldestReadyAt;
    }
  }
  for (const group of groups.values()) group.readyByPriority.sort((a, b) => b.priority - a.priority);
  return [...groups.values()];
}
