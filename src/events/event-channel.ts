import type { RunLogLine } from '../domain/run-log-line.js';
import type { RunEventsWritten } from '../store/types.js';

/**
 * What the instances sharing a store tell each other about live events: "I committed run
 * events" (each instance's feed then reads the store at once instead of at its next poll) and
 * the live log lines, which are never stored. With a store only one process owns (file,
 * SQLite) there is no other instance and no channel.
 */
export interface EventChannel {
  /** This instance committed run events (and what they changed for a runner); coalesced, never throws. */
  announce(written: RunEventsWritten): void;
  /** Sends a live log line to the other instances; never throws. */
  publishLog(line: RunLogLine): void;
  /** Starts listening (idempotent): from then on `onWake` and `onLog` receive what other instances send. */
  listen(): void;
  /**
   * Another instance committed run events, with what they changed for a runner (the writes one
   * announcement covers, together), or the channel reconnected: then everything may have
   * changed, since something may have been missed.
   */
  onWake(listener: (written: RunEventsWritten) => void): () => void;
  onLog(listener: (line: RunLogLine) => void): () => void;
  close(): Promise<void>;
}

/**
 * What a channel tells the service's metrics (src/metrics.ts), so an operator sees whether the
 * instances hear each other: a channel that stays down, or one that sends and never hears,
 * leaves each instance's streams and runner waiting for their slow polls.
 */
export interface EventChannelObserver {
  /** An announcement of this instance's writes was sent (`true`) or failed to send (`false`). */
  announced(sent: boolean): void;
  /** Another instance's announcement arrived. */
  heard(): void;
  /** The listening connection is up and listening (`true`), or was lost (`false`). */
  connected(up: boolean): void;
}
