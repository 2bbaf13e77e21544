/**
 * The logging surface the store drivers need. A pino logger satisfies it; the drivers only log
 * events an operator should see (a torn journal tail that was cut off, a failed compaction).
 */
export interface StoreLogger {
  info(details: Record<string, unknown>, message: string): void;
  warn(details: Record<string, unknown>, message: string): void;
  error(details: Record<string, unknown>, message: string): void;
}

export interface StoreOptions {
  /**
   * Group commit window. Writes arriving while a batch is being made durable wait for the next
   * batch, which starts at most this many milliseconds after the previous one started (and at
   * once when the store has been idle that long). Default 2.
   */
  flushIntervalMs?: number;
  logger?: StoreLogger;
}

export const DEFAULT_FLUSH_INTERVAL_MS = 2;

export const silentLogger: StoreLogger = {
  info: () => undefined,
  warn: () => undefined,
  error: () => undefined,
};
