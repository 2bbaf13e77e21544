import { createHash } from 'node:crypto';
import type pg from 'pg';
import type { Logger } from 'pino';
import { loadPg } from '../store/postgres/connection.js';
import type { RunLogLine } from '../domain/run-log-line.js';
import { ANY_RUN_EVENTS, type RunEventsWritten } from '../store/types.js';
import type { EventChannel, EventChannelObserver } from './event-channel.js';

/** PostgreSQL refuses a NOTIFY payload of 8000 bytes or more; a batch of log lines stays below this. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 7500;
/** A longer log line is cut to this many characters (with a mark) before it is sent to other instances. */
export const MAX_NOTIFIED_LINE_CHARS = 2000;

const RECONNECT_MIN_MS = 250;
/**
 * Least time between two announcements: the writes committed meanwhile share the next one. Under
 * load every claim, admission batch and finish announces, and a NOTIFY per write was the
 * largest share of the store's statements per run; this bounds them to about 100 a second at
 * the cost of up to this much delay before another instance hears of a write.
 */
export const ANNOUNCE_GAP_MS = 10;
const RECONNECT_MAX_MS = 5000;

export interface PostgresEventChannelOptions {
  /** The database the store uses (the listening connection is a dedicated one, not from the pool). */
  connectionString: string;
  /** The store's schema: instances of different deployments sharing one database do not hear each other. */
  schema: string;
  /** Where NOTIFY statements go (the store's pool). */
  notify: (channel: string, payload: string) => Promise<unknown>;
  /** Tells this instance's own notifications apart. */
  instanceId: string;
  logger: Logger;
  /** Told of each announcement sent or heard and of the listening connection's state (the metrics). */
  observer?: EventChannelObserver;
}

interface LogPayload {
  /** The sending instance. */
  o: string;
  l: RunLogLine[];
}

/**
 * An announcement's payload: the sender, then what the writes it covers changed for a runner
 * (`r`: a run left ready, `f`: a run left running; `-`: neither). A payload of the sender alone
 * (an instance of an earlier release) may have changed anything.
 */
export function announcementPayload(instanceId: string, written: RunEventsWritten): string {
  const flags = `${written.readyRuns ? 'r' : ''}${written.runsLeftRunning ? 'f' : ''}`;
  return `${instanceId} ${flags || '-'}`;
}

export function parseAnnouncement(payload: string): { sender: string; written: RunEventsWritten } {
  const space = payload.indexOf(' ');
  if (space < 0) return { sender: payload, written: ANY_RUN_EVENTS };
  const flags = payload.slice(space + 1);
  return { sender: payload.slice(0, space), written: { readyRuns: flags.includes('r'), runsLeftRunning: flags.includes('f') } };
}

/** No change for a runner: what is left to announce after a NOTIFY went out. */
const NOTHING_WRITTEN: RunEventsWritten = Object.freeze({ readyRuns: false, runsLeftRunning: false });

/** Channel names are identifiers of at most 63 bytes; a schema name may be that long alone. */
export function channelNames(schema: string): { events: string; logs: string } {
  const tag = createHash('md5').update(schema).digest('hex').slice(0, 16);
  return { events: `run_events_${tag}`, logs: `run_logs_${tag}` };
}

/** A log line whose JSON fits a notification beside others. */
function bounded(line: RunLogLine): RunLogLine {
  if (line.line.length <= MAX_NOTIFIED_LINE_CHARS) return line;
  return { ...line, line: `${line.line.slice(0, MAX_NOTIFIED_LINE_CHARS)}… [cut to ${MAX_NOTIFIED_LINE_CHARS} characters]` };
}

/**
 * The event channel over PostgreSQL `LISTEN/NOTIFY`. Announcements are NOTIFYs sent on the pool
 * right after the commit they announce, coalesced (one in flight, at most one more queued, sent
 * ANNOUNCE_GAP_MS after the previous one), so a burst of writes costs a couple of notifications, and the write's own transaction never takes
 * the notification queue's lock. Log lines go in batches that fit one payload.
 *
 * One dedicated connection listens; when it drops (server restart, network), it reconnects with
 * backoff and wakes the feed, whose read from its cursor covers whatever was announced meanwhile
 * (the feed's slow poll covers it too). No error of either connection is thrown out of here.
 */
export class PostgresEventChannel implements EventChannel {
  private readonly names: { events: string; logs: string };
  private readonly wakeListeners = new Set<(written: RunEventsWritten) => void>();
  /** What the writes not yet announced changed, together. */
  private unannounced: RunEventsWritten = NOTHING_WRITTEN;
  private readonly logListeners = new Set<(line: RunLogLine) => void>();
  private announcing = false;
  private announceAgain = false;
  private logQueue: RunLogLine[] = [];
  private sendingLogs = false;
  /** The listening connection, from its first connect attempt until it is lost. */
  private client: pg.Client | null = null;
  private listening = false;
  private closed = false;
  private reconnectDelay = RECONNECT_MIN_MS;
  private reconnectTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: PostgresEventChannelOptions) {
    this.names = channelNames(options.schema);
  }

  announce(written: RunEventsWritten): void {
    if (this.closed) return;
    this.unannounced = {
      readyRuns: this.unannounced.readyRuns || written.readyRuns,
      runsLeftRunning: this.unannounced.runsLeftRunning || written.runsLeftRunning,
    };
    if (this.announcing) {
      this.announceAgain = true;
      return;
    }
    this.announcing = true;
    const payload = announcementPayload(this.options.instanceId, this.unannounced);
    this.unannounced = NOTHING_WRITTEN;
    void this.options
      .notify(this.names.events, payload)
      .then(
        () => this.options.observer?.announced(true),
        (err: Error) => {
          this.options.observer?.announced(false);
          this.options.logger.warn({ cause: err.message }, 'run event announcement to other instances failed');
        },
      )
      .finally(() => {
        if (!this.announceAgain) {
          this.announcing = false;
          return;
        }
        // Still `announcing` through the gap: what commits meanwhile joins the queued one.
        const timer = setTimeout(() => {
          this.announcing = false;
          this.announceAgain = false;
          // The writes that came meanwhile are already in `unannounced`.
          this.announce(NOTHING_WRITTEN);
        }, ANNOUNCE_GAP_MS);
        timer.unref();
      });
  }

  publishLog(line: RunLogLine): void {
    if (this.closed) return;
    this.logQueue.push(bounded(line));
    if (!this.sendingLogs) void this.sendLogs();
  }

  /** Sends the queued lines in payload-sized batches, one NOTIFY at a time. */
  private async sendLogs(): Promise<void> {
    this.sendingLogs = true;
    try {
      while (this.logQueue.length > 0 && !this.closed) {
        const batch: RunLogLine[] = [];
        let bytes = 64;
        while (this.logQueue.length > 0) {
          const size = Buffer.byteLength(JSON.stringify(this.logQueue[0])) + 1;
          if (batch.length > 0 && bytes + size > MAX_NOTIFY_PAYLOAD_BYTES) break;
          batch.push(this.logQueue.shift()!);
          bytes += size;
        }
        const payload: LogPayload = { o: this.options.instanceId, l: batch };
        await this.options.notify(this.names.logs, JSON.stringify(payload)).catch((err: Error) => {
          this.options.logger.warn({ cause: err.message, lines: batch.length }, 'live log lines to other instances failed');
        });
      }
    } finally {
      this.sendingLogs = false;
    }
  }

  listen(): void {
    if (this.listening || this.closed) return;
    this.listening = true;
    void this.connect();
  }

  onWake(listener: (written: RunEventsWritten) => void): () => void {
    this.wakeListeners.add(listener);
    return () => this.wakeListeners.delete(listener);
  }

  onLog(listener: (line: RunLogLine) => void): () => void {
    this.logListeners.add(listener);
    return () => this.logListeners.delete(listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new (loadPg().Client)({ connectionString: this.options.connectionString });
    this.client = client;
    // An error event without a listener would end the process; a lost connection is retried.
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client, null));
    client.on('notification', (message) => this.received(message.channel, message.payload ?? ''));
    try {
      await client.connect();
      await client.query(`LISTEN "${this.names.events}"`);
      await client.query(`LISTEN "${this.names.logs}"`);
    } catch (err) {
      this.lost(client, err as Error);
      return;
    }
    if (this.closed || this.client !== client) {
      await client.end().catch(() => undefined);
      return;
    }
    this.reconnectDelay = RECONNECT_MIN_MS;
    this.options.observer?.connected(true);
    // Whatever was announced while no connection listened is read now.
    this.wake(ANY_RUN_EVENTS);
  }

  private lost(client: pg.Client, err: Error | null): void {
    // Only the current connection's loss counts (ending it below reports once more).
    if (this.closed || this.client !== client) return;
    this.client = null;
    client.removeAllListeners('notification');
    client.end().catch(() => undefined);
    this.options.observer?.connected(false);
    this.options.logger.warn({ cause: err?.message ?? 'connection ended', retryInMs: this.reconnectDelay }, 'event channel lost its PostgreSQL connection; reconnecting');
    this.reconnectTimer = setTimeout(() => {
      this.reconnectTimer = null;
      void this.connect();
    }, this.reconnectDelay);
    this.reconnectTimer.unref();
    this.reconnectDelay = Math.min(this.reconnectDelay * 2, RECONNECT_MAX_MS);
  }

  private received(channel: string, payload: string): void {
    if (channel === this.names.events) {
      const { sender, written } = parseAnnouncement(payload);
      if (sender !== this.options.instanceId) {
        this.options.observer?.heard();
        this.wake(written);
      }
      return;
    }
    if (channel !== this.names.logs) return;
    let parsed: LogPayload;
    try {
      parsed = JSON.parse(payload) as LogPayload;
    } catch {
      return;
    }
    if (parsed.o === this.options.instanceId || !Array.isArray(parsed.l)) return;
    for (const line of parsed.l) for (const listener of this.logListeners) listener(line);
  }

  private wake(written: RunEventsWritten): void {
    for (const listener of this.wakeListeners) listener(written);
  }
}
