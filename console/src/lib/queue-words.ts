/**
 * `GET /api/queue` (docs/queue.md) in words for the queue page: what a limit bucket matches,
 * its caps, a concurrency key and how long its oldest run has waited. Pure functions, so the
 * page stays markup and these are unit tested (test/console/queue-words.test.ts).
 */
import type { QueueAnswer } from './api-types.js';
import { formatAbsolute, formatDuration } from './time.js';

export type QueueBucket = QueueAnswer['buckets'][number];
export type QueueKey = QueueAnswer['keys'][number];
export type QueuePriority = QueueAnswer['priorities'][number];

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString()} ${n === 1 ? one : many}`;

/** "runs of type deploy or audit with a key starting “env/”"; "every run" when it matches all. */
export function bucketMatchWords(match: QueueBucket['match']): string {
  const { types, keyPrefix } = match as { types?: readonly string[]; keyPrefix?: string };
  const typePart = types && types.length > 0 ? `runs of type ${types.join(' or ')}` : null;
  const keyPart = keyPrefix !== undefined ? `with a key starting “${keyPrefix}”` : null;
  if (typePart === null && keyPart === null) return 'every run';
  return [typePart ?? 'runs', keyPart].filter((part) => part !== null).join(' ');
}

/** The bucket's caps, one phrase each: "2 running at once", "1 running per key", "100 starts per 1 min". */
export function bucketCapWords(bucket: Pick<QueueBucket, 'concurrency' | 'perKey' | 'rate'>): string[] {
  const caps: string[] = [];
  if (bucket.concurrency !== null) caps.push(`${bucket.concurrency.toLocaleString()} running at once`);
  if (bucket.perKey !== null) caps.push(`${bucket.perKey.toLocaleString()} running per key`);
  if (bucket.rate !== null) caps.push(`${plural(bucket.rate.max, 'start')} per ${formatDuration(bucket.rate.windowSeconds * 1000)}`);
  return caps;
}

/** Whether the bucket is full now: its running runs reach its overall cap (the per-key and rate caps are per key or over time, not shown as full). */
export function bucketIsFull(bucket: Pick<QueueBucket, 'concurrency' | 'running'>): boolean {
  return bucket.concurrency !== null && bucket.running >= bucket.concurrency;
}

/** A concurrency key as people read it: the unkeyed runs share one queue, named so. */
export function keyWords(key: QueueKey['key']): string {
  return key === null ? 'Unkeyed runs' : key;
}

/** How long the oldest waiting run has waited: "3 min 10 s", or "nothing waiting". */
export function oldestWaitWords(seconds: QueueKey['oldestWaitSeconds']): string {
  return seconds === null ? 'nothing waiting' : formatDuration(seconds * 1000);
}

/** The page's one-line summary: "3 running, 120 waiting across 4 keys". */
export function queueSummaryWords(answer: Pick<QueueAnswer, 'running' | 'waiting' | 'keys'>): string {
  return `${answer.running.toLocaleString()} running, ${answer.waiting.toLocaleString()} waiting across ${plural(answer.keys.length, 'key')}`;
}

/** How `heldBy` names a run waiting for its not-before time: `not-before:<instant>`. */
const NOT_BEFORE = 'not-before:';

/**
 * What holds a waiting run back, from `heldBy` (docs/queue.md): "held by limit deploys", "held by
 * the deploy type's limit", "runs not before 29 Nov 2026, 23:45:00" (the reader's local time);
 * null when nothing does (it waits only for a slot or its turn).
 */
export function heldByWords(heldBy: string | null | undefined): string | null {
  if (heldBy === null || heldBy === undefined) return null;
  if (heldBy.startsWith(NOT_BEFORE)) return `runs not before ${formatAbsolute(heldBy.slice(NOT_BEFORE.length))}`;
  if (heldBy.startsWith('type:')) return `held by the ${heldBy.slice('type:'.length)} type's limit`;
  return `held by limit ${heldBy}`;
}

/** A priority as its column and list read it: "Priority 5 (highest)", "Priority 3 (default)", "Priority 1 (lowest)". */
export function priorityWords(priority: number): string {
  const note = priority === 5 ? ' (highest)' : priority === 3 ? ' (default)' : priority === 1 ? ' (lowest)' : '';
  return `Priority ${priority}${note}`;
}

/** The priorities that have waiting runs among `lists`, the highest first: the columns of a key table. */
export function priorityColumns(...lists: ReadonlyArray<readonly Pick<QueuePriority, 'priority'>[]>): number[] {
  return [...new Set(lists.flat().map((entry) => entry.priority))].sort((a, b) => b - a);
}

/** How many runs of a key wait at `priority` (0 when none). */
export function waitingAt(key: Pick<QueueKey, 'byPriority'>, priority: number): number {
  return key.byPriority.find((entry) => entry.priority === priority)?.waiting ?? 0;
}

/**
 * The not-before instant a run still waits for (a trailing debounce's window end, docs/queue.md),
 * or null: it is not waiting in the queue, has none, or the instant has come by `now`.
 */
export function pendingNotBefore(run: { status: string; queueState: string | null; notBefore: string | null }, now: number): string | null {
  if (run.status !== 'pending' || run.queueState !== 'ready' || run.notBefore === null) return null;
  const at = Date.parse(run.notBefore);
  return Number.isFinite(at) && at > now ? run.notBefore : null;
}
