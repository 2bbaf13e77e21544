import { compareCursors, type EventCursor } from '../domain/run-event-cursor.js';
import { eventCursorOf } from '../store/run-event-stamps.js';
import type { RunEventFilter, StateStore, StoredRunEvent } from '../store/types.js';
import { filterKey, passesFilter, type FeedEvent, type FeedPage } from './feed-page.js';
import type { FeedSubscriber, RunEventFeed } from './run-event-feed.js';
import { KEEPALIVE_FRAME, RETRY_FRAME, endFrame, errorFrame, runEventFrame } from './sse-frames.js';

/** How long a client closed for not reading may still take its last bytes before the connection is dropped. */
export const SLOW_CLIENT_GRACE_MS = 10_000;

/** Run statuses after which nothing more happens to a run: its stream sends `end`. */
export const TERMINAL_RUN_STATUSES: ReadonlySet<string> = new Set(['success', 'failed', 'cancelled', 'skipped']);

/**
 * Where a stream's bytes go: one client connection (the HTTP layer adapts its response to this).
 * `bufferedBytes` is what the connection holds that the kernel has not taken yet: the bytes a
 * client that does not read makes the process keep.
 */
export interface StreamSink {
  write(chunk: Buffer): void;
  /** Runs `writes` with the connection corked: the frames of one page leave in one system call. */
  batch(writes: () => void): void;
  /** Inside `batch`: hands what was corked so far to the connection now (a page larger than the bound is not a slow client). */
  flush(): void;
  readonly bufferedBytes: number;
  /** Resolves once the connection's buffer has drained, or the connection closed. */
  drained(): Promise<void>;
  /**
   * Ends the response (the connection closes once it is sent). With `dropAfterMs`, a client that
   * has not taken the rest within that time loses the connection, and the bytes held for it.
   */
  end(options?: { dropAfterMs?: number }): void;
  /** Called once when the client goes away (not when the stream ends itself). */
  onClose(listener: () => void): void;
}

export interface RunEventStreamOptions {
  store: StateStore;
  feed: RunEventFeed;
  sink: StreamSink;
  filter: RunEventFilter;
  /** The run a per-run stream follows (it ends after the run's terminal event); null: every run the filter passes. */
  runId: string | null;
  /** The client's Last-Event-ID; null: a per-run stream replays the run from its first event, the others start at the head. */
  after: EventCursor | null;
  /** The most the connection may hold unsent for this client before the stream is closed. */
  bufferBytes: number;
  pageSize: number;
  /** The stream ended (either side); called once. */
  onClosed: () => void;
}

/**
 * One client's event stream. It joins the feed first, then reads its history from the store
 * (from its Last-Event-ID, or the run's start) while the feed's pages wait beside it, and then
 * takes those pages: every event is sent once, in cursor order, whatever the two overlap (each is
 * sent only when it lies past the last one sent). When the feed's waiting pages outgrow the
 * buffer bound while history is still being read, they are dropped and the history read goes on
 * past them (the store has them all); that round then repeats, so nothing is skipped.
 *
 * Bounded: before each write, what the connection already holds plus the frame must fit
 * `bufferBytes`, else the client is not reading fast enough and the stream ends with an `error`
 * event saying so (the client resumes with its Last-Event-ID). History pages wait for the
 * connection to drain instead, so a slow but reading client can catch up on a long history.
 */
export class RunEventStream implements FeedSubscriber {
  private cursor: EventCursor | null;
  private live = false;
  private pending: FeedEvent[] = [];
  private pendingBytes = 0;
  private overflowed = false;
  private closed = false;
  private finishing = false;
  private lastStatus: string | null = null;
  /** Streams of every run with equal filters share what they take of each page. */
  private readonly sliceKey: string;

  constructor(private readonly options: RunEventStreamOptions) {
    this.cursor = options.after;
    this.sliceKey = filterKey(options.filter);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get unsentBytes(): number {
    return this.closed ? 0 : this.options.sink.bufferedBytes;
  }

  /** Sends the history, then follows the feed. Never rejects: a failure ends the stream with an `error` event. */
  async start(): Promise<void> {
    const { sink, feed, store, runId } = this.options;
    sink.onClose(() => this.clientGone());
    sink.write(RETRY_FRAME);
    try {
      await feed.subscribe(this);
      if (this.closed) return;
      if (this.cursor === null && runId === null) this.cursor = await store.runEventsHead();
      await this.catchUp();
      if (this.closed) return;
      this.goLive();
      if (runId !== null && !this.finishing) await this.endIfFinished(runId);
    } catch (err) {
      this.close(errorFrame('unavailable', `the run events cannot be read: ${(err as Error).message}`));
    }
  }

  deliver(page: FeedPage): void {
    if (this.closed) return;
    const { runId, filter, sink, bufferBytes } = this.options;
    if (runId !== null) {
      // A per-run stream takes events one by one: it ends on a terminal one.
      const events = page.ofRun(runId);
      if (events.length > 0) this.take(events);
      return;
    }
    const slice = page.slice(filter, this.sliceKey);
    if (slice.events.length === 0) return;
    if (this.live && this.isNew(slice.events[0]!.entry) && sink.bufferedBytes + slice.frames.length <= bufferBytes) {
      // The usual case of /api/events: the frames it takes, joined once for every stream with this filter, in one write.
      if (this.send(slice.frames)) this.sent(slice.events[slice.events.length - 1]!.entry);
      return;
    }
    this.take(slice.events);
  }

  /** Events of a page that pass this stream's filter: sent (corked into one write) when live, else kept until history is read. */
  private take(events: readonly FeedEvent[]): void {
    if (this.live) {
      this.options.sink.batch(() => {
        for (const event of events) this.takeLive(event);
      });
      return;
    }
    for (const event of events) {
      this.pending.push(event);
      this.pendingBytes += event.frame.length;
    }
    if (this.pendingBytes > this.options.bufferBytes) {
      this.pending = [];
      this.pendingBytes = 0;
      this.overflowed = true;
    }
  }

  /** A live log line of this stream's run (only per-run streams get them). */
  log(frame: Buffer): void {
    if (!this.closed) this.send(frame);
  }

  keepalive(): void {
    if (!this.closed) this.send(KEEPALIVE_FRAME);
  }

  /** Ends the stream from this side, `last` (if any) being its final frame. */
  close(last?: Buffer, options: { dropAfterMs?: number } = {}): void {
    if (this.closed) return;
    this.closed = true;
    if (last !== undefined) this.options.sink.write(last);
    this.options.sink.end(options);
    this.detach();
  }

  private clientGone(): void {
    if (this.closed) return;
    this.closed = true;
    this.detach();
  }

  private detach(): void {
    this.options.feed.unsubscribe(this);
    this.pending = [];
    this.pendingBytes = 0;
    this.options.onClosed();
  }

  /** History, page by page; a frame that would not fit the bound waits for the connection to drain (the client is reading). */
  private async catchUp(): Promise<void> {
    const { store, filter, pageSize, sink, bufferBytes } = this.options;
    do {
      this.overflowed = false;
      for (;;) {
        if (this.closed) return;
        const page = await store.readRunEvents(this.cursor, pageSize, filter);
        for (const entry of page.events) {
          if (this.closed) return;
          if (!this.isNew(entry)) continue;
          const frame = runEventFrame(entry);
          while (sink.bufferedBytes > 0 && sink.bufferedBytes + frame.length > bufferBytes && !this.closed) await sink.drained();
          if (this.send(frame)) this.sent(entry);
        }
        if (page.events.length < pageSize) break;
      }
    } while (this.overflowed);
  }

  private goLive(): void {
    this.live = true;
    const waiting = this.pending;
    this.pending = [];
    this.pendingBytes = 0;
    this.options.sink.batch(() => {
      for (const event of waiting) this.takeLive(event);
    });
  }

  private takeLive(event: FeedEvent): void {
    if (this.closed || !this.isNew(event.entry) || !passesFilter(event.entry, this.options.filter)) return;
    if (!this.send(event.frame)) return;
    this.sent(event.entry);
  }

  /** An event read from the store by this stream (history, or the rest of a run's last write). */
  private sendEntry(entry: StoredRunEvent): void {
    if (this.closed || !this.isNew(entry)) return;
    if (!this.send(runEventFrame(entry))) return;
    this.sent(entry);
  }

  private isNew(entry: StoredRunEvent): boolean {
    return this.cursor === null || compareCursors(entry.cursor, this.cursor) > 0;
  }

  private sent(entry: StoredRunEvent): void {
    this.cursor = entry.cursor;
    this.lastStatus = entry.status;
    if (this.live && this.options.runId !== null && TERMINAL_RUN_STATUSES.has(entry.status)) void this.finish(this.options.runId);
  }

  /** Writes a frame if it fits the bound; otherwise the client is too slow and the stream ends. */
  private send(frame: Buffer): boolean {
    if (this.closed) return false;
    const { sink, bufferBytes } = this.options;
    if (sink.bufferedBytes + frame.length > bufferBytes) sink.flush();
    if (sink.bufferedBytes + frame.length > bufferBytes) {
      this.close(
        errorFrame('slow_consumer', `the client did not read its events: more than ${bufferBytes} bytes waited to be sent; resume with Last-Event-ID`),
        { dropAfterMs: SLOW_CLIENT_GRACE_MS },
      );
      return false;
    }
    sink.write(frame);
    return true;
  }

  /** After history: a run already finished (and all its events sent) ends the stream now. */
  private async endIfFinished(runId: string): Promise<void> {
    const run = await this.options.store.getRun(runId);
    if (this.closed || this.finishing) return;
    if (run === null) {
      this.finishing = true;
      this.close(endFrame(runId, this.lastStatus ?? 'unknown'));
      return;
    }
    const newest = run.events[run.events.length - 1];
    const allSent = newest === undefined || (this.cursor !== null && compareCursors(eventCursorOf(run, newest), this.cursor) <= 0);
    if (TERMINAL_RUN_STATUSES.has(run.status) && allSent) await this.finish(runId, run.status);
  }

  /**
   * The run reached a terminal status: the rest of that write's events (a feed page may end
   * inside it) and anything already readable after them are sent, then `end`.
   */
  private async finish(runId: string, status?: string): Promise<void> {
    if (this.finishing) return;
    this.finishing = true;
    const { store, pageSize } = this.options;
    try {
      for (;;) {
        const page = await store.readRunEvents(this.cursor, pageSize, { runId });
        if (this.closed) return;
        for (const entry of page.events) this.sendEntry(entry);
        if (page.events.length < pageSize) break;
      }
    } catch {
      // What was sent is complete up to its cursor; the end below still holds.
    }
    this.close(endFrame(runId, this.lastStatus ?? status ?? 'unknown'));
  }
}
