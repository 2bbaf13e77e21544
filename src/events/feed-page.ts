import type { RunEventFilter, StoredRunEvent } from '../store/types.js';
import { runEventFrame } from './sse-frames.js';

/** One event as the feed fans it out: the store's entry and its frame, encoded once for every client. */
export interface FeedEvent {
  entry: StoredRunEvent;
  frame: Buffer;
}

/** The events of a page that one kind of stream takes, in cursor order, and their frames joined. */
export interface PageSlice {
  events: readonly FeedEvent[];
  /** What a stream to which every one of `events` is new writes, in one go. */
  frames: Buffer;
}

const EMPTY: PageSlice = Object.freeze({ events: Object.freeze([]) as readonly FeedEvent[], frames: Buffer.alloc(0) });

/** Whether a stream with `filter` takes the event. */
export function passesFilter(entry: StoredRunEvent, filter: RunEventFilter): boolean {
  if (filter.runId !== undefined) return entry.runId === filter.runId;
  if (filter.type !== undefined && entry.type !== filter.type) return false;
  if (filter.status !== undefined && entry.status !== filter.status) return false;
  if (filter.runIdPrefix !== undefined && !entry.runId.startsWith(filter.runIdPrefix)) return false;
  return filter.includeInternal === true || !entry.internal;
}

/** Streams whose filters (without a run) have equal keys take the same events of every page. */
export function filterKey(filter: RunEventFilter): string {
  return JSON.stringify([filter.type ?? null, filter.status ?? null, filter.includeInternal === true, filter.runIdPrefix ?? null]);
}

/**
 * One read of the feed, as every stream receives it. What a kind of stream takes of it is worked
 * out once, for the first stream of that kind, and shared by the others: a thousand `/api/events`
 * clients with the same filter cost one pass over the page and one joined Buffer, not a thousand;
 * a per-run stream looks up its run's events instead of scanning the page.
 */
export class FeedPage {
  private readonly slices = new Map<string, PageSlice>();
  private byRun: Map<string, FeedEvent[]> | null = null;

  private constructor(readonly events: readonly FeedEvent[]) {}

  /** Encodes each event's frame once. */
  static of(entries: readonly StoredRunEvent[]): FeedPage {
    return new FeedPage(entries.map((entry) => ({ entry, frame: runEventFrame(entry) })));
  }

  /** Bytes of all the page's frames. */
  get bytes(): number {
    let total = 0;
    for (const event of this.events) total += event.frame.length;
    return total;
  }

  /** What a stream with `filter` (no run; `key` its filterKey) takes of the page. */
  slice(filter: RunEventFilter, key: string): PageSlice {
    let slice = this.slices.get(key);
    if (slice === undefined) {
      const events = this.events.filter((event) => passesFilter(event.entry, filter));
      slice = events.length === 0 ? EMPTY : { events, frames: events.length === 1 ? events[0]!.frame : Buffer.concat(events.map((event) => event.frame)) };
      this.slices.set(key, slice);
    }
    return slice;
  }

  /** The page's events of one run. */
  ofRun(runId: string): readonly FeedEvent[] {
    if (this.byRun === null) {
      this.byRun = new Map();
      for (const event of this.events) {
        const forRun = this.byRun.get(event.entry.runId);
        if (forRun === undefined) this.byRun.set(event.entry.runId, [event]);
        else forRun.push(event);
      }
    }
    return this.byRun.get(runId) ?? EMPTY.events;
  }
}
