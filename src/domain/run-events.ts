import type { RunEvent, RunRecord } from './run-record.js';

/** Bounds from DECISIONS.md: at most 200 events per run. */
export const MAX_RUN_EVENTS = 200;

export const attemptIdOf = (runId: string, attempt: number) => `${runId}#${attempt}`;

/** Appends an event, keeping the newest MAX_RUN_EVENTS; `seq` keeps counting so gaps show truncation. */
export function withEvent(run: RunRecord, at: Date, event: Omit<RunEvent, 'seq' | 'at'>): RunRecord {
  const last = run.events[run.events.length - 1];
  const next: RunEvent = { seq: (last?.seq ?? 0) + 1, at: at.toISOString(), ...event };
  return { ...run, events: [...run.events, next].slice(-MAX_RUN_EVENTS), updatedAt: at.toISOString() };
}
