import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { RunLogLine, RunLogListener } from '../domain/run-log-line.js';
import { freshShared } from '../domain/fresh-share.js';
import type { RunRecord } from '../domain/run-record.js';
import type { StateStore } from '../store/types.js';
import { attemptIdOf } from '../domain/run-events.js';
import { AttemptWriter } from './attempt-writer.js';
import { DEFAULT_RUN_LOG_LIMITS, type RunLogLimits } from './limits.js';
import { createLineRedactor } from './redact-line.js';
import { RUN_LOG_COLLECTION, parseStoredAttemptLog } from './run-log-docs.js';
import { sweepRunLogs } from './retention-sweep.js';
import type { AttemptLog, AttemptLogOpener, AttemptLogView, LoggedAttempt, RunLogFeed, RunLogReader, RunLogView } from './types.js';

export interface RunLogBookDeps {
  store: StateStore;
  clock: Clock;
  logger: Logger;
  /** Values the service holds secret (its API keys, the webhook secret, ...): never kept in a line. */
  secrets: readonly string[];
  limits?: Partial<RunLogLimits>;
}

export interface RunLogBook extends AttemptLogOpener, RunLogReader, RunLogFeed {
  /** Removes the logs of runs the store no longer has (run after each retention pass); returns how many runs' logs went. */
  sweep(): Promise<number>;
  /** Writes every open attempt's unsaved lines now. */
  flush(): Promise<void>;
}

/**
 * Whether an attempt of the run was started: the attempt number only moves past an attempt that
 * ran (a retry, a restart recovery), and the current one ran once it was claimed. A run held for
 * approval, queued, or cancelled before it started has an attempt that never ran.
 */
function attemptRan(run: Pick<RunRecord, 'attempt' | 'queueAttempts'>, attempt: number): boolean {
  return attempt < run.attempt || run.queueAttempts.some((entry) => entry.attempt === attempt && entry.state === 'running');
}

/**
 * Run logs: what each attempt printed (a worker's standard error, an in-process handler's log
 * lines at info and above), redacted, bounded and kept in the state store per attempt. Lines
 * are held in memory per open attempt and written on a short timer and when the attempt ends,
 * never once per line. Live lines go to subscribers as they are kept (docs/run-logs.md).
 */
export function createRunLogBook(deps: RunLogBookDeps): RunLogBook {
  const limits: RunLogLimits = { ...DEFAULT_RUN_LOG_LIMITS, ...deps.limits };
  const redact = createLineRedactor(deps.secrets);
  const open = new Map<string, AttemptWriter>();
  const unsaved = new Set<AttemptWriter>();
  const listeners = new Set<RunLogListener>();
  let flushTimer: NodeJS.Timeout | null = null;
  // One pass at a time; a pass asked for while one runs gets one that starts after it.
  const sweep = freshShared(() => sweepRunLogs(deps.store));

  function tell(line: RunLogLine): void {
    for (const listener of listeners) {
      try {
        listener(line);
      } catch (err) {
        deps.logger.warn({ err, runId: line.runId }, 'run log listener failed');
      }
    }
  }

  function flushSoon(): void {
    if (flushTimer !== null) return;
    flushTimer = setTimeout(() => {
      flushTimer = null;
      void flush();
    }, limits.flushIntervalMs);
    flushTimer.unref();
  }

  async function flush(): Promise<void> {
    const writers = [...unsaved];
    unsaved.clear();
    await Promise.all(writers.map((writer) => writer.save()));
    // A write that failed keeps its lines: it is tried again on the next tick.
    for (const writer of writers) if (writer.hasUnsaved && open.get(writer.attemptId) === writer) unsaved.add(writer);
    if (unsaved.size > 0) flushSoon();
  }

  const writerDeps = {
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    limits,
    redact,
    onKept(writer: AttemptWriter, line: RunLogLine) {
      unsaved.add(writer);
      flushSoon();
      tell(line);
    },
    onClosed(writer: AttemptWriter) {
      unsaved.delete(writer);
      if (open.get(writer.attemptId) === writer) open.delete(writer.attemptId);
    },
  };

  function openAttempt(attempt: LoggedAttempt): AttemptLog {
    const writer = new AttemptWriter(attempt, writerDeps);
    open.set(writer.attemptId, writer);
    return writer;
  }

  /** What the attempt printed, or null when nothing of it is kept (it printed nothing, or never ran). */
  async function attemptView(runId: string, taskId: string, attemptId: string): Promise<AttemptLogView | null> {
    const live = open.get(attemptId);
    // This instance runs the attempt: its memory is newer than the store.
    if (live) return live.view();
    const stored = parseStoredAttemptLog(await deps.store.getDoc(RUN_LOG_COLLECTION, attemptId));
    if (stored === null || stored.runId !== runId || stored.taskId !== taskId) return null;
    return { attemptId, lines: stored.lines, truncated: stored.truncated };
  }

  async function read(runId: string): Promise<RunLogView | null> {
    const run = await deps.store.getRun(runId);
    if (run === null) return null;
    const first = Math.max(1, run.attempt - limits.maxAttemptsPerRun + 1);
    const numbers = Array.from({ length: Math.max(0, run.attempt - first + 1) }, (_, i) => first + i);
    const views = await Promise.all(numbers.map((n) => attemptView(runId, run.taskId, attemptIdOf(runId, n))));
    // Every attempt that ran is listed, so an operator can tell "printed nothing" (no lines) from
    // "never ran" (not listed); an attempt with a log ran, whatever the record still says of it.
    const attempts = numbers.flatMap((n, i): AttemptLogView[] => {
      const view = views[i] ?? null;
      if (view !== null) return [view];
      return attemptRan(run, n) ? [{ attemptId: attemptIdOf(runId, n), lines: [], truncated: 0 }] : [];
    });
    return { runId, attempts };
  }

  return {
    open: openAttempt,
    read,
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    sweep,
    flush,
  };
}
