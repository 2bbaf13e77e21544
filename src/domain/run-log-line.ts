/**
 * One line a run's attempt printed: a worker's standard error, or an in-process handler's log
 * line at info and above. Kept per attempt (GET /api/tasks/runs/:runId/logs) and sent live on the
 * run's event stream as `event: log`.
 */
export interface RunLogLine {
  runId: string;
  /** `<runId>#<attempt>`, as in queueAttempts[].attemptId. */
  attemptId: string;
  at: string;
  /**
   * `stderr`: a worker's standard error, or the standard error of a project command it runs;
   * `stdout`: the standard output of a project command it runs; `log`: an in-process handler's
   * logger.
   */
  stream: 'stderr' | 'stdout' | 'log';
  /** Already redacted (secrets, tokens, keys) and bounded in length. */
  line: string;
}

/** Where live log lines go once kept (the event streams subscribe here). */
export type RunLogListener = (line: RunLogLine) => void;

/**
 * A worker forwards what a project command prints (a test suite, a build script) on its own
 * standard error as it is printed, one line at a time, each line opened by the mark of the
 * stream it came from; the service's run log keeps it under that stream. The marks are ASCII
 * record separators, which no runner prints, so a worker's own lines are never taken for them.
 */
export const FORWARDED_STREAM_MARKS = { stdout: '\u001eout\u001e', stderr: '\u001eerr\u001e' } as const;

/** A worker's stderr line as the run log keeps it: a forwarded line under its stream, any other as `stderr`. */
export function forwardedLine(raw: string): { stream: 'stdout' | 'stderr'; line: string } {
  if (raw.startsWith(FORWARDED_STREAM_MARKS.stdout)) return { stream: 'stdout', line: raw.slice(FORWARDED_STREAM_MARKS.stdout.length) };
  if (raw.startsWith(FORWARDED_STREAM_MARKS.stderr)) return { stream: 'stderr', line: raw.slice(FORWARDED_STREAM_MARKS.stderr.length) };
  return { stream: 'stderr', line: raw };
}
