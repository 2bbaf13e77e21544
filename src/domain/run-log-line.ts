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
  /** `stderr`: a worker's standard error; `log`: an in-process handler's logger. */
  stream: 'stderr' | 'log';
  /** Already redacted (secrets, tokens, keys) and bounded in length. */
  line: string;
}

/** Where live log lines go once kept (the event streams subscribe here). */
export type RunLogListener = (line: RunLogLine) => void;
