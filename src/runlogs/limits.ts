/**
 * How much of an attempt's output is kept (docs/run-logs.md explains each bound). Bytes are
 * UTF-8 bytes of the kept line text plus one for its line break, as the lines would take in a file.
 */
export interface RunLogLimits {
  /** Newest lines kept per attempt; older ones are dropped from the front and counted in `truncated`. */
  maxLines: number;
  /** Newest bytes kept per attempt, whichever of the two bounds is reached first. */
  maxBytes: number;
  /** Longest kept line; a longer one is cut and ends with `…[+N bytes]`. */
  lineMaxBytes: number;
  /**
   * Longest unfinished stderr line held while waiting for its line break: past it, what came so
   * far is kept as a line (cut to `lineMaxBytes`) and the rest up to the next break is skipped.
   */
  pendingMaxBytes: number;
  /** Attempts of one run whose logs are kept (the newest). */
  maxAttemptsPerRun: number;
  /** How long a kept line may wait in memory before its attempt's log is written to the store. */
  flushIntervalMs: number;
}

export const DEFAULT_RUN_LOG_LIMITS: RunLogLimits = {
  maxLines: 2_000,
  maxBytes: 256 * 1024,
  lineMaxBytes: 4 * 1024,
  pendingMaxBytes: 64 * 1024,
  maxAttemptsPerRun: 10,
  flushIntervalMs: 500,
};
