import type { Logger } from 'pino';
import type { EventCursor } from '../domain/run-event-cursor.js';
import type { StateStore, StoredRunEvent } from '../store/types.js';
import type { EventChannel } from './event-channel.js';
import { runEventFrame } from './sse-frames.js';

/** One event as the feed fans it out: the store's entry and its frame, encoded once for every client. */
export interface FeedEvent {
  entry: StoredRunEvent;
  frame: Buffer;
}

/** One read's events, and all their frames joined: what a client that takes every one of them writes in one go. */
export interface FeedPage {
  events: readonly FeedEvent[];
  frames: Buffer;
}

/** What the feed delivers to: a stream (or anything else that follows the feed). */
export interface FeedSubscriber {
  /** Pages in cursor order, each after the previous one; must not throw. */
  deliver(page: FeedPage): void;
}

export interface RunEventFeedOptions {
  store: StateStore;
  channel: EventChannel | null;
  logger: Logger;
  /** Safety net under the wake-ups (a lost notification, another instance's write without one). */
  pollIntervalMs?: number;
  /** Events per store read. */
  pageSize?: number;
  /** Least time from one read's start to the next one's (see RunEventFeed). */
  minReadIntervalMs?: number;
}

export const DEFAULT_FEED_POLL_MS = 1000;
export const DEFAULT_FEED_PAGE_SIZE = 500;
/**
 * At most 50 reads a second: under a burst of writes each read then takes a page of many
 * events, and each client gets that page in one write instead of one write per event (with
 * 1,000 clients, per-event writes cost the service more than admitting the runs did). An event
 * after a quiet spell is read at once; one inside a burst waits at most this long, or longer
 * when handing out pages is expensive (FAN_OUT_SHARE).
 */
export const DEFAULT_FEED_MIN_READ_INTERVAL_MS = 20;
/**
 * The most of the event loop that handing pages to clients may take: after a page that took
 * `t` ms to write to every client, the next read waits at least `t / share` ms from the page's
 * start. With many clients a page costs a system call per client whatever its size, so under
 * load the pages grow instead of the cost. The share is small while the loop is busy (the
 * admissions and runs keep most of it) and larger while it idles (events go out sooner).
 */
export const FAN_OUT_SHARE = { busy: 0.1, idle: 0.4 };
/** Share of the time since the last page that other work (not handing out pages) kept the loop busy, above which it counts as busy. */
const BUSY_LOOP = 0.5;
/** Re-reads while the store holds committed events back (PostgreSQL horizon): first after this, doubling. */
const HELD_BACK_FIRST_RETRY_MS = 5;

/**
 * The one reader of the store's run-event feed in this process, running only while something
 * subscribes. It starts at the store's head, and each time it is woken (a write of this process
 * committed events, another instance announced some, the poll timer fired, the store held events
 * back a moment ago) reads everything past its cursor, page by page, and hands each page to every
 * subscriber. A wake-up during a read makes one more read after it, never a second read at once.
 *
 * However many clients follow, the store sees one reader per instance; the clients joining late
 * read their history themselves (RunEventStream) and then take the feed's pages.
 */
export class RunEventFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly minReadIntervalMs: number;
  private lastReadAt = 0;
  private loopUsage = performance.eventLoopUtilization();
  /** Earliest start of the next read: the minimum interval, stretched by the cost of the last fan-out. */
  private nextReadAt = 0;
  private throttleTimer: NodeJS.Timeout | null = null;
  /** Where the next read starts; null while stopped. */
  private position: EventCursor | null = null;
  /** Resolves once `position` is set for the current run of the feed. */
  private started: Promise<void> | null = null;
  /** Bumped on each stop, so a read that was under way when the feed stopped hands nothing out. */
  private generation = 0;
  private reading = false;
  private readAgain = false;
  private heldBackDelay = 0;
  private heldBackTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private stopListening: Array<() => void> = [];

  constructor(private readonly options: RunEventFeedOptions) {
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_FEED_POLL_MS;
    this.pageSize = options.pageSize ?? DEFAULT_FEED_PAGE_SIZE;
    this.minReadIntervalMs = options.minReadIntervalMs ?? DEFAULT_FEED_MIN_READ_INTERVAL_MS;
  }

  get subscriberCount(): number {
    return this.subscribers.size;
  }

  /**
   * Adds a subscriber (starting the feed for the first). Resolves once the feed's start cursor
   * is known: the subscriber is then sure to receive every event past it, so history it reads
   * from the store afterwards overlaps what the feed delivers, never leaves a hole.
   */
  subscribe(subscriber: FeedSubscriber): Promise<void> {
    this.subscribers.add(subscriber);
    this.started ??= this.start();
    return this.started;
  }

  unsubscribe(subscriber: FeedSubscriber): void {
    if (!this.subscribers.delete(subscriber)) return;
    if (this.subscribers.size === 0) this.stop();
  }

  /** Something may have committed events: read (now, or right after the read under way). */
  wake(): void {
    if (this.position === null) return;
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    if (this.throttleTimer !== null) return;
    const wait = Math.max(this.lastReadAt + this.minReadIntervalMs, this.nextReadAt) - Date.now();
    if (wait <= 0) {
      void this.read();
      return;
    }
    this.throttleTimer = setTimeout(() => {
      this.throttleTimer = null;
      this.wake();
    }, wait);
    this.throttleTimer.unref();
  }

  private async start(): Promise<void> {
    const generation = this.generation;
    const { store, channel } = this.options;
    // Listening first: a write committed while the head is read wakes a read from the head.
    const wake = () => this.wake();
    this.stopListening = [store.onRunEvents(wake)];
    if (channel !== null) {
      channel.listen();
      this.stopListening.push(channel.onWake(wake));
    }
    let head: EventCursor;
    try {
      head = await store.runEventsHead();
    } catch (err) {
      if (generation === this.generation) this.stop();
      throw err;
    }
    if (generation !== this.generation) return;
    this.position = head;
    this.pollTimer = setInterval(wake, this.pollIntervalMs);
    this.pollTimer.unref();
    this.wake();
  }

  private stop(): void {
    this.generation += 1;
    for (const stop of this.stopListening) stop();
    this.stopListening = [];
    if (this.pollTimer !== null) clearInterval(this.pollTimer);
    if (this.heldBackTimer !== null) clearTimeout(this.heldBackTimer);
    if (this.throttleTimer !== null) clearTimeout(this.throttleTimer);
    this.pollTimer = null;
    this.heldBackTimer = null;
    this.throttleTimer = null;
    this.heldBackDelay = 0;
    this.position = null;
    this.started = null;
    // A read under way finds the generation changed and hands nothing out.
    this.reading = false;
    this.readAgain = false;
  }

  /** Reads page after page while they come full; a wake-up meanwhile makes one more read, through the throttle. */
  private async read(): Promise<void> {
    const generation = this.generation;
    this.reading = true;
    this.readAgain = false;
    try {
      let full: boolean;
      do {
        this.lastReadAt = Date.now();
        const page = await this.options.store.readRunEvents(this.position, this.pageSize, { includeInternal: true });
        if (generation !== this.generation) return;
        full = page.events.length === this.pageSize;
        if (page.events.length > 0) {
          this.position = page.events[page.events.length - 1]!.cursor;
          const events = page.events.map((entry) => ({ entry, frame: runEventFrame(entry) }));
          this.fanOut({ events, frames: Buffer.concat(events.map((event) => event.frame)) });
        }
        this.noteHeldBack(page.heldBack);
      } while (full && generation === this.generation);
    } catch (err) {
      // The next wake-up or poll tries again from the same cursor: nothing is skipped.
      this.options.logger.warn({ cause: (err as Error).message }, 'run event feed read failed; retrying');
    } finally {
      if (generation === this.generation) {
        this.reading = false;
        if (this.readAgain) {
          this.readAgain = false;
          this.wake();
        }
      }
    }
  }

  /** While the store holds committed events back, read again soon (5 ms, doubling up to the poll interval). */
  private noteHeldBack(heldBack: boolean): void {
    if (!heldBack) {
      this.heldBackDelay = 0;
      return;
    }
    if (this.heldBackTimer !== null) return;
    this.heldBackDelay = Math.min(this.pollIntervalMs, this.heldBackDelay === 0 ? HELD_BACK_FIRST_RETRY_MS : this.heldBackDelay * 2);
    this.heldBackTimer = setTimeout(() => {
      this.heldBackTimer = null;
      this.wake();
    }, this.heldBackDelay);
    this.heldBackTimer.unref();
  }

  /**
   * Hands a page to every subscriber. Its cost is measured up to the next turn of the event loop:
   * the connections' writes leave there (HTTP responses flush their corked sockets on the next tick).
   */
  private fanOut(page: FeedPage): void {
    const started = performance.now();
    const startedAt = Date.now();
    for (const subscriber of this.subscribers) subscriber.deliver(page);
    setImmediate(() => {
      const cost = performance.now() - started;
      const usage = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(usage, this.loopUsage);
      this.loopUsage = usage;
      // The fan-out's own cost does not make the loop busy: only what else it had to do.
      const elapsed = since.active + since.idle;
      const busy = elapsed > 0 && (since.active - cost) / elapsed > BUSY_LOOP;
      this.nextReadAt = Math.max(this.nextReadAt, startedAt + cost / (busy ? FAN_OUT_SHARE.busy : FAN_OUT_SHARE.idle));
    });
  }
}
