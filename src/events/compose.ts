import type { Logger } from 'pino';
import type { AppConfig } from '../config/types.js';
import { PostgresStateStore } from '../store/postgres/postgres-state-store.js';
import type { StateStore } from '../store/types.js';
import type { EventChannel, EventChannelObserver } from './event-channel.js';
import { PostgresEventChannel } from './postgres-event-channel.js';
import { RunEventHub, type LiveLogSource } from './run-event-hub.js';

export interface LiveEventsDeps {
  config: Pick<AppConfig, 'eventStreams'>;
  store: StateStore;
  logger: Logger;
  /** This instance's id (its own notifications are told apart by it). */
  instanceId: string;
  liveLogs?: LiveLogSource;
  /** The metrics of the channel, asked for only when there is one (src/metrics.ts). */
  channelObserver?: () => EventChannelObserver;
}

/**
 * The live event streams of one instance: the hub over the store, with the PostgreSQL channel
 * when instances share a PostgreSQL store (with a store one process owns, there is no one else
 * to tell).
 */
export function createLiveEvents(deps: LiveEventsDeps): RunEventHub {
  const { config, store, logger } = deps;
  let channel: EventChannel | null = null;
  if (store instanceof PostgresStateStore) {
    channel = new PostgresEventChannel({
      connectionString: store.connection.connectionString,
      schema: store.schema,
      // Prepared once per connection: each instance announces up to a hundred times a second,
      // and an unnamed statement was parsed again each time (0.24 ms of the server's time).
      notify: (name, payload) => store.pool().query({ name: 'run-events-notify', text: 'SELECT pg_notify($1, $2)', values: [name, payload] }),
      instanceId: deps.instanceId,
      logger,
      ...(deps.channelObserver ? { observer: deps.channelObserver() } : {}),
    });
  }
  return new RunEventHub({
    store,
    channel,
    logger,
    maxStreamsPerKey: config.eventStreams.maxPerKey,
    bufferBytes: config.eventStreams.bufferBytes,
    keepaliveMs: config.eventStreams.keepaliveSeconds * 1000,
    ...(deps.liveLogs ? { liveLogs: deps.liveLogs } : {}),
  });
}
