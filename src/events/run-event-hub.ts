import type { Logger } from 'pino';
import { DomainError, invalidRequest, notFound } from '../domain/errors.js';
import { decodeCursor, FEED_START, type EventCursor } from '../domain/run-event-cursor.js';
import type { RunLogLine, RunLogListener } from '../domain/run-log-line.js';
import type { RunStatus } from '../domain/run-record.js';
import type { RunEventFilter, RunEventsWritten, StateStore } from '../store/types.js';
import type { EventChannel } from './event-channel.js';
import { DEFAULT_FEED_PAGE_SIZE, RunEventFeed } from './run-event-feed.js';
import { RunEventStream, type StreamSink } from './run-event-stream.js';
import { errorFrame, logFrame } from './sse-frames.js';

/** Where live log lines come from (the run log capture); `runId` null: every run's. */
export interface LiveLogSource {
  subscribe(runId: string | null, listener: RunLogListener): () => void;
}

export interface RunEventHubOptions {
  store: StateStore;
  /** Cross-instance announcements and log lines; null with a store one process owns. */
  channel: EventChannel | null;
  logger: Logger;
  /** Open streams per key (config eventStreams.maxPerKey); one more answers 429. */
  maxStreamsPerKey: number;
  /** Bytes a client's connection may hold unsent (config eventStreams.bufferBytes). */
  bufferBytes: number;
  /** How often every open stream gets a keepalive comment (config eventStreams.keepaliveSeconds). */
  keepaliveMs: number;
  /** The feed's safety-net poll; default one second. */
  pollIntervalMs?: number;
  /** Events per store read. */
  pageSize?: number;
  /** Live log lines to send on per-run streams (wire this, or call publishLogLine, not both). */
  liveLogs?: LiveLogSource;
}

/** A stream whose checks passed and whose slot is taken; the HTTP layer starts it on the connection, or releases it. */
export interface PreparedStream {
  start(sink: StreamSink): void;
  /** Gives the slot back when the stream is not started after all (a HEAD request). */
  release(): void;
}

/** What opens a stream: who asks (the cap is per key) and where the client resumes. */
export interface StreamRequest {
  /** The key's actor: the per-key cap counts by it, as the rate limits do. */
  key: string;
  /** The Last-Event-ID header as sent; absent: no resume. */
  lastEventId?: string;
}

export const LAST_EVENT_ID_MAX_LENGTH = 64;

/** One feed read hands out at most this fraction (1/n) of a client's buffer bound. */
const READ_SHARE_OF_BUFFER = 4;

/**
 * The live event streams of one service instance (docs/events.md): the one feed reader, every
 * open client stream, the per-key cap, the keepalive tick, and the live log lines, which reach
 * the streams of every instance through the event channel.
 */
export class RunEventHub {
  private readonly feed: RunEventFeed;
  private readonly streams = new Set<RunEventStream>();
  private readonly byRun = new Map<string, Set<RunEventStream>>();
  private readonly perKey = new Map<string, number>();
  private readonly stopListening: Array<() => void> = [];
  private keepaliveTimer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly options: RunEventHubOptions) {
    this.feed = new RunEventFeed({
      store: options.store,
      channel: options.channel,
      logger: options.logger,
      pollIntervalMs: options.pollIntervalMs,
      pageSize: options.pageSize,
      // A read that falls behind a burst hands each client a quarter of its bound at most, then
      // waits its turn: the client's connection then never holds near the bound for the feed's sake.
      maxReadBytes: Math.floor(options.bufferBytes / READ_SHARE_OF_BUFFER),
    });
    const { channel, store, liveLogs } = options;
    if (channel !== null) {
      // Every instance's writes reach the others, whether or not this one has clients.
      this.stopListening.push(store.onRunEvents((written) => channel.announce(written)));
      this.stopListening.push(channel.onLog((line) => this.deliverLog(line)));
    }
    if (liveLogs !== undefined) this.stopListening.push(liveLogs.subscribe(null, (line) => this.publishLogLine(line)));
  }

  /**
   * Calls `listener` when another instance sharing the store committed run events (admitted,
   * claimed, finished, retried a run), with what they changed for a runner, or the channel
   * reconnected and may have missed some: the runner then looks for claimable runs at once
   * instead of at its next poll. No channel (a store one process owns): never called. Returns
   * the unsubscribe function.
   */
  onOtherInstanceWrite(listener: (written: RunEventsWritten) => void): () => void {
    const { channel } = this.options;
    if (channel === null || this.closed) return () => undefined;
    channel.listen();
    const stop = channel.onWake(listener);
    this.stopListening.push(stop);
    return stop;
  }

  /** Open streams (all keys). */
  get openStreams(): number {
    return this.streams.size;
  }

  /** `GET /api/tasks/runs/:runId/events`: the run must exist; replays it from its first event unless resuming. */
  async prepareRunStream(runId: string, request: StreamRequest): Promise<PreparedStream> {
    this.refuseWhenClosed();
    const after = this.resumeCursor(request.lastEventId);
    if ((await this.options.store.getRun(runId)) === null) throw notFound(`run ${runId}`);
    return this.prepare(request.key, { runId }, runId, after);
  }

  /** `GET /api/events`: every run's events (internal types only when `type` names one), from the head unless resuming. */
  async prepareFeedStream(filter: { type?: string; status?: RunStatus }, request: StreamRequest): Promise<PreparedStream> {
    this.refuseWhenClosed();
    const after = this.resumeCursor(request.lastEventId);
    const streamFilter: RunEventFilter = { ...filter, includeInternal: filter.type !== undefined };
    return this.prepare(request.key, streamFilter, null, after);
  }

  /**
   * The events of the runs whose id starts with `runIdPrefix` (a flow's steps, internal ones
   * too): every stored one from the first unless resuming, then live ones. The caller checks
   * that what the prefix names exists.
   */
  prepareRunGroupStream(runIdPrefix: string, request: StreamRequest): PreparedStream {
    this.refuseWhenClosed();
    const after = this.resumeCursor(request.lastEventId) ?? FEED_START;
    return this.prepare(request.key, { runIdPrefix, includeInternal: true }, null, after);
  }

  /** Sends a live log line to the per-run streams of its run, on this instance and every other. */
  publishLogLine(line: RunLogLine): void {
    if (this.closed) return;
    this.deliverLog(line);
    this.options.channel?.publishLog(line);
  }

  /** Ends every stream (clients reconnect elsewhere with their Last-Event-ID) and stops listening. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const stop of this.stopListening.splice(0)) stop();
    for (const stream of [...this.streams]) stream.close(errorFrame('unavailable', 'the service is stopping; resume with Last-Event-ID'));
    await this.options.channel?.close();
  }

  private refuseWhenClosed(): void {
    if (this.closed) throw new DomainError('unavailable', 'the service is stopping');
  }

  private resumeCursor(lastEventId: string | undefined): EventCursor | null {
    if (lastEventId === undefined || lastEventId === '') return null;
    const cursor = lastEventId.length <= LAST_EVENT_ID_MAX_LENGTH ? decodeCursor(lastEventId) : null;
    if (cursor === null) {
      throw invalidRequest('Last-Event-ID is not an event id this service sent', [
        { path: '/headers/last-event-id', message: 'must be the id: of an event this service sent' },
      ]);
    }
    return cursor;
  }

  private prepare(key: string, filter: RunEventFilter, runId: string | null, after: EventCursor | null): PreparedStream {
    const open = this.perKey.get(key) ?? 0;
    const max = this.options.maxStreamsPerKey;
    if (open >= max) {
      throw new DomainError('rate_limited', `this key already has ${open} open event streams, the most allowed (eventStreams.maxPerKey ${max})`, {
        limit: 'eventStreams.maxPerKey',
        max,
      });
    }
    this.perKey.set(key, open + 1);
    let settled = false;
    const release = () => {
      const left = (this.perKey.get(key) ?? 1) - 1;
      if (left > 0) this.perKey.set(key, left);
      else this.perKey.delete(key);
    };
    return {
      start: (sink) => {
        if (settled) return;
        settled = true;
        const stream: RunEventStream = new RunEventStream({
          store: this.options.store,
          feed: this.feed,
          sink,
          filter,
          runId,
          after,
          bufferBytes: this.options.bufferBytes,
          pageSize: this.options.pageSize ?? DEFAULT_FEED_PAGE_SIZE,
          onClosed: () => {
            release();
            this.forget(stream, runId);
          },
        });
        this.remember(stream, runId);
        if (this.closed) {
          stream.close(errorFrame('unavailable', 'the service is stopping'));
          return;
        }
        void stream.start();
      },
      release: () => {
        if (settled) return;
        settled = true;
        release();
      },
    };
  }

  private remember(stream: RunEventStream, runId: string | null): void {
    this.streams.add(stream);
    if (runId !== null) {
      let forRun = this.byRun.get(runId);
      if (forRun === undefined) this.byRun.set(runId, (forRun = new Set()));
      forRun.add(stream);
    }
    if (this.keepaliveTimer === null) {
      this.keepaliveTimer = setInterval(() => {
        for (const open of this.streams) open.keepalive();
      }, this.options.keepaliveMs);
      this.keepaliveTimer.unref();
    }
  }

  private forget(stream: RunEventStream, runId: string | null): void {
    this.streams.delete(stream);
    if (runId !== null) {
      const forRun = this.byRun.get(runId);
      forRun?.delete(stream);
      if (forRun?.size === 0) this.byRun.delete(runId);
    }
    if (this.streams.size === 0 && this.keepaliveTimer !== null) {
      clearInterval(this.keepaliveTimer);
      this.keepaliveTimer = null;
    }
  }

  private deliverLog(line: RunLogLine): void {
    const streams = this.byRun.get(line.runId);
    if (streams === undefined) return;
    const frame = logFrame(line);
    for (const stream of streams) stream.log(frame);
  }
}
