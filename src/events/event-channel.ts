import type { RunLogLine } from '../domain/run-log-line.js';

/**
 * What the instances sharing a store tell each other about live events: "I committed run
 * events" (each instance's feed then reads the store at once instead of at its next poll) and
 * the live log lines, which are never stored. With a store only one process owns (file,
 * SQLite) there is no other instance and no channel.
 */
export interface EventChannel {
  /** This instance committed run events; coalesced, never throws. */
  announce(): void;
  /** Sends a live log line to the other instances; never throws. */
  publishLog(line: RunLogLine): void;
  /** Starts listening (idempotent): from then on `onWake` and `onLog` receive what other instances send. */
  listen(): void;
  /** Another instance committed run events, or the channel reconnected (something may have been missed). */
  onWake(listener: () => void): () => void;
  onLog(listener: (line: RunLogLine) => void): () => void;
  close(): Promise<void>;
}
