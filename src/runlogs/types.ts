import type { RunLogLine, RunLogListener } from '../domain/run-log-line.js';
import type { RunRecord } from '../domain/run-record.js';
import type { KeptLine } from './bounded-lines.js';

export type RunLogStream = RunLogLine['stream'];

/** What an attempt's log is opened for: the run as its runner claimed it. */
export type LoggedAttempt = Pick<RunRecord, 'runId' | 'taskId' | 'attempt' | 'seq'>;

/**
 * The log of one attempt while it runs. Never throws: a line that cannot be kept is dropped, and
 * a store that cannot take the log costs the log, never the run.
 */
export interface AttemptLog {
  readonly runId: string;
  readonly attemptId: string;
  /** One line (or several, split at line breaks) of `stream`: redacted, bounded and kept. */
  write(stream: RunLogStream, text: string): void;
  /** A chunk of the worker's standard error as it arrives; split into lines here. */
  stderr(chunk: Buffer | string): void;
  /**
   * Keeps the unfinished last stderr line, writes what the store does not have yet and stops
   * taking lines. Resolves once written (or once writing failed and was logged); never rejects.
   */
  close(): Promise<void>;
}

/** Opens the log of an attempt about to run (what the executor needs of the run log book). */
export interface AttemptLogOpener {
  open(attempt: LoggedAttempt): AttemptLog;
}

export interface AttemptLogView {
  attemptId: string;
  lines: KeptLine[];
  /** Lines dropped from the front to stay within the bounds. */
  truncated: number;
}

/** The answer of GET /api/tasks/runs/:runId/logs. */
export interface RunLogView {
  runId: string;
  /** Every attempt that ran (the newest 10), oldest first; one that printed nothing has `lines: []`. */
  attempts: AttemptLogView[];
}

export interface RunLogReader {
  /** The run's kept logs, or null when the store has no such run. */
  read(runId: string): Promise<RunLogView | null>;
}

export interface RunLogFeed {
  /**
   * Calls `listener` with every line kept from now on, on this instance, synchronously as it is
   * kept (already redacted and bounded). Returns the function that stops it. A listener that
   * throws is logged and kept; it must not block (hand the line on and return).
   */
  subscribe(listener: RunLogListener): () => void;
}
