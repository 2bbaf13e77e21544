/**
 * What the demo's terminal says, as text: one line for each run that ends, and a summary of each
 * minute in which something happened (requests answered, runs ended). Pure: the terminal
 * (demo-terminal.ts) feeds it events and the clock, and prints what it returns.
 */

import type { RunEventData } from '../events/run-event-data.js';

/** Statuses a run ends in (flow steps add `skipped`). */
const ENDED: ReadonlySet<string> = new Set(['success', 'failed', 'cancelled', 'skipped']);
/** Runs whose status the watcher remembers; the oldest is forgotten first. */
const RUNS_REMEMBERED = 5_000;

export interface RunEnd {
  runId: string;
  type: string;
  status: string;
  at: string;
  /** From the first event the demo saw of the run; null when it saw none before the end. */
  durationMs: number | null;
}

/** `13:31:02Z`: the time of day in UTC, said as UTC. */
export function clockTime(at: Date): string {
  return `${at.toISOString().slice(11, 19)}Z`;
}

function duration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** `13:31:02Z  success    security-audit         <run id>  1.2 s`: the whole run id, so it can be copied. */
export function runLine(end: RunEnd): string {
  const took = end.durationMs === null ? '' : `  ${duration(end.durationMs)}`;
  return `${clockTime(new Date(end.at))}  ${end.status.padEnd(9)}  ${end.type.padEnd(22)} ${end.runId}${took}`;
}

/**
 * Turns the run events of the event stream into run ends: one per run each time it reaches an
 * ending status (a run admitted again after it failed ends again), never one per event.
 */
export class RunEndWatcher {
  private readonly runs = new Map<string, { firstAt: number; status: string }>();

  observe(event: Pick<RunEventData, 'runId' | 'type' | 'status' | 'at'>): RunEnd | null {
    const at = Date.parse(event.at);
    const known = this.runs.get(event.runId);
    // A run seen again after it ended (admitted again) starts over.
    const underWay = known !== undefined && !ENDED.has(known.status);
    this.remember(event.runId, { firstAt: underWay ? known.firstAt : at, status: event.status });
    if (!ENDED.has(event.status) || (known !== undefined && !underWay)) return null;
    return { runId: event.runId, type: event.type, status: event.status, at: event.at, durationMs: underWay ? Math.max(0, at - known.firstAt) : null };
  }

  private remember(runId: string, entry: { firstAt: number; status: string }): void {
    this.runs.delete(runId);
    this.runs.set(runId, entry);
    if (this.runs.size > RUNS_REMEMBERED) this.runs.delete(this.runs.keys().next().value!);
  }
}

/** Counts of one minute: requests answered by status class, runs ended by status. */
export class MinuteTally {
  private requests = new Map<string, number>();
  private runs = new Map<string, number>();

  request(statusCode: number): void {
    const family = `${Math.floor(statusCode / 100)}xx`;
    this.requests.set(family, (this.requests.get(family) ?? 0) + 1);
  }

  runEnded(status: string): void {
    this.runs.set(status, (this.runs.get(status) ?? 0) + 1);
  }

  /** The minute's summary line, or null when nothing happened; either way the next minute starts at zero. */
  take(at: Date): string | null {
    const requests = [...this.requests].sort(([a], [b]) => a.localeCompare(b));
    const runs = [...this.runs].sort(([a], [b]) => a.localeCompare(b));
    this.requests = new Map();
    this.runs = new Map();
    if (requests.length === 0 && runs.length === 0) return null;
    const total = (counts: Array<[string, number]>) => counts.reduce((sum, [, n]) => sum + n, 0);
    const split = (counts: Array<[string, number]>) => (counts.length ? ` (${counts.map(([k, n]) => `${n} ${k}`).join(', ')})` : '');
    const requestCount = total(requests);
    const runCount = total(runs);
    return (
      `${clockTime(at)}  last minute: ${requestCount} request${requestCount === 1 ? '' : 's'}${split(requests)}; ` +
      `${runCount} run${runCount === 1 ? '' : 's'} ended${split(runs)}`
    );
  }
}
