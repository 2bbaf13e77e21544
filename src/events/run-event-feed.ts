import type { Logger } from 'pino';
import type { EventCursor } from '../domain/run-event-cursor.js';
import type { StateStore } from '../store/types.js';
import type { EventChannel } from './event-channel.js';
import { FeedPage } from './feed-page.js';

/** What the feed delivers to: a stream (or anything else that follows the feed). */
export interface FeedSubscriber {
  /** Pages in cursor order, each after the previous one; must not throw. */
  deliver(page: FeedPage): void;
  /** Bytes its client has been handed and not yet taken (its connection's buffer). */
  readonly unsentBytes: number;
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
  /**
   * Bytes of frames one read hands out before it stops and leaves the rest to the next read
   * (after the pacing wait); at least one page. Default: unbounded.
   */
  maxReadBytes?: number;
}

export const DEFAULT_FEED_POLL_MS = 1000;
export const DEFAULT_FEED_PAGE_SIZE = 500;
/**
 * At most 100 reads a second: under a burst of writes each read then takes a page of many
 * events, and each client gets that page in one write instead of one write per event (with
 * 1,000 clients, per-event writes cost the service more than admitting the runs did). An event
 * after a quiet spell is read at once; one inside a burst waits at most this long, or longer
 * when handing out pages is expensive (FAN_OUT_SHARE), which is what bounds the writes once
 * there are many clients (20 ms here added its own wait to every event at a steady 60 a second,
 * half the bare broadcaster's p99 on a quiet machine).
 */
export const DEFAULT_FEED_MIN_READ_INTERVAL_MS = 10;
/**
 * The most of the event loop that handing pages to clients may take: after a page that took
 * `t` ms to write to every client, the next read waits at least `t / share` ms from the page's
 * start. With many clients a page costs a system call per client whatever its size, and every
 * byte of it once per client, so under load the pages grow instead of the number of writes, and
 * the feed falls behind a burst rather than taking the loop from the admissions. The share is
 * small while the service is busy and larger while it idles (events go out sooner).
 */
export const FAN_OUT_SHARE = { busy: 0.1, idle: 0.5 };
/**
 * Busy: other work (not handing out pages) kept the loop active this share of the time since the
 * last page (below 1 - FAN_OUT_SHARE.idle, so that work squeezed by idle-time fan-outs still
 * counts as busy), or the feed is behind (a read came back full: at least a page of events waited).
 * The second catches a service whose loop waits on commits (fsync) while the machine's cores are
 * taken by the requests' other costs: its loop looks half idle, yet every write to the clients is
 * taken from the admissions.
 */
const BUSY_LOOP = 0.4;
/** While the feed waits for its clients to take what they hold, it looks again this often. */
const DRAIN_POLL_MS = 50;
/** The longest the feed waits for its clients in a row, however they drain. */
const MAX_DRAIN_WAIT_MS = 10_000;
/** Re-reads while the store holds committed events back (PostgreSQL horizon): first after this, doubling. */
const HELD_BACK_FIRST_RETRY_MS = 5;
/**
 * ...up to this, whatever the poll interval: the horizon is cluster-wide, so any transaction left
 * open (another schema's, a migration, an operator's psql) holds the feed back while it lasts, and
 * once it ends the events it held are handed out within this long, not within the doubled wait
 * (which after a 3 s hold had grown to 2.5 s). A read while held back is one indexed statement.
 */
export const HELD_BACK_MAX_RETRY_MS = 100;

/**
 * The one reader of the store's run-event feed in this process, running only while something
 * subscribes. It starts at the store's head, and each time it is woken (a write of this process
 * committed events, another instance announced some, the poll timer fired, the store held events
 * back a moment ago) reads everything past its cursor, page by page, and hands each page to every
 * subscriber. A wake-up during a read makes one more read after it, never a second read at once.
 * Reads are paced (FAN_OUT_SHARE) and, behind a burst, bounded in bytes and held while most
 * clients have not taken the last ones (waitForClients).
 *
 * However many clients follow, the store sees one reader per instance; the clients joining late
 * read their history themselves (RunEventStream) and then take the feed's pages.
 */
export class RunEventFeed {
  private readonly subscribers = new Set<FeedSubscriber>();
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly minReadIntervalMs: number;
  private readonly maxReadBytes: number;
  private lastReadAt = 0;
  private loopUsage = performance.eventLoopUtilization();
  /** Earliest start of the next read: the minimum interval, stretched by the cost of the last fan-out. */
  private nextReadAt = 0;
  private throttleTimer: NodeJS.Timeout | null = null;
  /** The last read stopped with events left to read (a full page, or its byte bound). */
  private behind = false;
  /** Fan-outs whose cost is not measured yet; a wake-up meanwhile waits for it (wakeMeasured). */
  private measuring = 0;
  private wakeMeasured = false;
  /** Since when the feed has waited for its clients, and what they held unsent at the last look. */
  private drainWait: { since: number; unsent: number } | null = null;
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
    this.maxReadBytes = options.maxReadBytes ?? Number.POSITIVE_INFINITY;
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
    if (this.measuring > 0) {
      this.wakeMeasured = true;
      return;
    }
    let wait = Math.max(this.lastReadAt + this.minReadIntervalMs, this.nextReadAt) - Date.now();
    if (wait <= 0) {
      if (!this.behind || !this.waitForClients()) {
        void this.read();
        return;
      }
      wait = DRAIN_POLL_MS;
    }
    this.throttleTimer = setTimeout(() => {
      this.throttleTimer = null;
      this.wake();
    }, wait);
    this.throttleTimer.unref();
  }

  /**
   * Behind a burst, the next read waits while most clients still hold more than a read's worth
   * of bytes unsent and are taking them: when the machine cannot move the bytes as fast as the
   * events come, the events wait in the store (which costs no memory) rather than in a thousand
   * connection buffers until every client passes its bound. A client that stopped reading, or a
   * few slow ones, do not hold the others back: they meet their bound as before. Ten seconds at
   * most in a row.
   */
  private waitForClients(): boolean {
    let congested = 0;
    let unsent = 0;
    for (const subscriber of this.subscribers) {
      const bytes = subscriber.unsentBytes;
      if (bytes > this.maxReadBytes) {
        congested += 1;
        unsent += bytes;
      }
    }
    const now = Date.now();
    const last = this.drainWait;
    if (congested * 2 <= this.subscribers.size || (last !== null && (unsent >= last.unsent || now - last.since > MAX_DRAIN_WAIT_MS))) {
      this.drainWait = null;
      return false;
    }
    this.drainWait = { since: last?.since ?? now, unsent };
    return true;
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
    this.behind = false;
    this.drainWait = null;
    this.wakeMeasured = false;
    this.position = null;
    this.started = null;
    // A read under way finds the generation changed and hands nothing out.
    this.reading = false;
    this.readAgain = false;
  }

  /**
   * Reads page after page while they come full, up to `maxReadBytes` of frames; a wake-up
   * meanwhile, or pages left past the byte bound, make one more read, through the throttle.
   */
  private async read(): Promise<void> {
    const generation = this.generation;
    this.reading = true;
    this.readAgain = false;
    try {
      let full: boolean;
      let handed = 0;
      do {
        this.lastReadAt = Date.now();
        const page = await this.options.store.readRunEvents(this.position, this.pageSize, { includeInternal: true });
        if (generation !== this.generation) return;
        full = page.events.length === this.pageSize;
        if (page.events.length > 0) {
          this.position = page.events[page.events.length - 1]!.cursor;
          const fed = FeedPage.of(page.events);
          handed += fed.bytes;
          this.fanOut(fed, full);
        }
        this.noteHeldBack(page.heldBack);
      } while (full && handed < this.maxReadBytes && generation === this.generation);
      this.behind = full;
      if (full) this.readAgain = true;
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

  /** While the store holds committed events back, read again soon (5 ms, doubling up to HELD_BACK_MAX_RETRY_MS or the poll interval). */
  private noteHeldBack(heldBack: boolean): void {
    if (!heldBack) {
      this.heldBackDelay = 0;
      return;
    }
    if (this.heldBackTimer !== null) return;
    this.heldBackDelay = Math.min(this.pollIntervalMs, HELD_BACK_MAX_RETRY_MS, this.heldBackDelay === 0 ? HELD_BACK_FIRST_RETRY_MS : this.heldBackDelay * 2);
    this.heldBackTimer = setTimeout(() => {
      this.heldBackTimer = null;
      this.wake();
    }, this.heldBackDelay);
    this.heldBackTimer.unref();
  }

  /**
   * Hands a page to every subscriber and measures what that cost: the deliveries and the
   * connections' writes, which leave on this tick's nextTick queue (an HTTP response corks its
   * socket on its first write of a tick and queues the uncork there), ahead of the measuring
   * tick queued after them. Until the cost is known no other read starts. `behind`: the read came
   * back full, more events wait.
   */
  private fanOut(page: FeedPage, behind: boolean): void {
    const started = performance.now();
    const startedAt = Date.now();
    this.measuring += 1;
    for (const subscriber of this.subscribers) subscriber.deliver(page);
    process.nextTick(() => {
      const cost = performance.now() - started;
      const usage = performance.eventLoopUtilization();
      const since = performance.eventLoopUtilization(usage, this.loopUsage);
      this.loopUsage = usage;
      // The fan-out's own cost does not make the loop busy: only what else it had to do.
      const elapsed = since.active + since.idle;
      const busy = behind || (elapsed > 0 && (since.active - cost) / elapsed > BUSY_LOOP);
      this.nextReadAt = Math.max(this.nextReadAt, startedAt + cost / (busy ? FAN_OUT_SHARE.busy : FAN_OUT_SHARE.idle));
      this.measuring -= 1;
      if (this.measuring === 0 && this.wakeMeasured) {
        this.wakeMeasured = false;
        this.wake();
      }
    });
  }
}
