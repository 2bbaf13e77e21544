import type { AppConfig } from '../config/types.js';
import { UNKEYED } from '../store/fair-claims.js';
import { bucketMatches, type LimitBucket, type PriorityCount, type QueueGroup } from '../store/limit-buckets.js';
import type { StateStore } from '../store/types.js';

/** One concurrency key's share of the queue: running, waiting, and how long its oldest waiting run has waited. */
export interface QueueKeyView {
  /** null: the unkeyed runs. */
  key: string | null;
  running: number;
  waiting: number;
  oldestWaitSeconds: number | null;
  /** Its waiting runs by priority, the highest first (only priorities with a waiting run). */
  byPriority: QueuePriorityView[];
}

/** Waiting runs of one priority (1-5, as triggered: aging is not counted) and how long the oldest has waited. */
export interface QueuePriorityView {
  priority: number;
  waiting: number;
  oldestWaitSeconds: number;
}

export interface QueueBucketView {
  name: string;
  match: LimitBucket['match'];
  concurrency: number | null;
  perKey: number | null;
  rate: { max: number; windowSeconds: number } | null;
  running: number;
  waiting: number;
  /** Its waiting runs by priority, the highest first. */
  priorities: QueuePriorityView[];
  keys: QueueKeyView[];
}

/**
 * The queue as `GET /api/queue` shows it (docs/queue.md): every limit bucket with the running and
 * waiting runs it matches by key, then the whole queue by key. Read from the store's counts of
 * ready and running runs, so every instance sharing it answers alike.
 */
export async function queueView(store: Pick<StateStore, 'queueGroups'>, config: Partial<Pick<AppConfig, 'limits'>>, now: Date) {
  const groups = await store.queueGroups(now);
  const buckets: QueueBucketView[] = (config.limits ?? []).map((bucket) => {
    const matching = groups.filter((group) => bucketMatches(bucket, group));
    const keys = byKey(matching, now);
    return {
      name: bucket.name,
      match: bucket.match,
      concurrency: bucket.concurrency ?? null,
      perKey: bucket.perKey ?? null,
      rate: bucket.rate ?? null,
      running: sum(keys, 'running'),
      waiting: sum(keys, 'waiting'),
      priorities: byPriority(matching.flatMap((group) => group.readyByPriority), now),
      keys,
    };
  });
  const keys = byKey(groups, now);
  return {
    at: now.toISOString(),
    running: sum(keys, 'running'),
    waiting: sum(keys, 'waiting'),
    /** Of the waiting runs, those held by their not-before time (a trailing debounce's window has not ended). */
    notBefore: groups.reduce((n, group) => n + group.notBefore, 0),
    priorities: byPriority(groups.flatMap((group) => group.readyByPriority), now),
    buckets,
    keys,
  };
}

export type QueueAnswer = Awaited<ReturnType<typeof queueView>>;

/** Groups summed per key, the longest waiting first. */
function byKey(groups: readonly QueueGroup[], now: Date): QueueKeyView[] {
  const keys = new Map<string, { running: number; waiting: number; oldest: string | null; priorities: PriorityCount[] }>();
  for (const group of groups) {
    const entry = keys.get(group.key) ?? { running: 0, waiting: 0, oldest: null, priorities: [] };
    entry.running += group.running;
    entry.waiting += group.ready;
    if (group.oldestReadyAt !== null && (entry.oldest === null || group.oldestReadyAt < entry.oldest)) entry.oldest = group.oldestReadyAt;
    entry.priorities.push(...group.readyByPriority);
    keys.set(group.key, entry);
  }
  const views = [...keys].map(([key, entry]) => ({
    key: key === UNKEYED ? null : key,
    running: entry.running,
    waiting: entry.waiting,
    oldestWaitSeconds: entry.oldest === null ? null : waitedSeconds(entry.oldest, now),
    byPriority: byPriority(entry.priorities, now),
  }));
  return views.sort((a, b) => (b.oldestWaitSeconds ?? -1) - (a.oldestWaitSeconds ?? -1) || String(a.key).localeCompare(String(b.key)));
}

function sum(keys: readonly QueueKeyView[], field: 'running' | 'waiting'): number {
  return keys.reduce((total, key) => total + key[field], 0);
}

/** Counts of ready runs summed per priority, the highest first. */
function byPriority(counts: readonly PriorityCount[], now: Date): QueuePriorityView[] {
  const priorities = new Map<number, { waiting: number; oldest: string }>();
  for (const count of counts) {
    const entry = priorities.get(count.priority);
    if (entry === undefined) priorities.set(count.priority, { waiting: count.ready, oldest: count.oldestReadyAt });
    else {
      entry.waiting += count.ready;
      if (count.oldestReadyAt < entry.oldest) entry.oldest = count.oldestReadyAt;
    }
  }
  return [...priorities]
    .sort(([a], [b]) => b - a)
    .map(([priority, entry]) => ({ priority, waiting: entry.waiting, oldestWaitSeconds: waitedSeconds(entry.oldest, now) }));
}

function waitedSeconds(since: string, now: Date): number {
  return Math.max(0, (now.getTime() - Date.parse(since)) / 1000);
}
