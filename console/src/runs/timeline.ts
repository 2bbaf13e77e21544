import type { RunView } from '../api/types.js';

export type PhaseKind = 'queued' | 'approval' | 'running' | 'retry-wait' | 'blocked';

export interface Phase {
  kind: PhaseKind;
  attempt: number;
  startMs: number;
  endMs: number;
  /** Still going (the run has not left this phase). */
  open: boolean;
  detail: string | null;
}

export interface AttemptTimeline {
  startMs: number;
  endMs: number;
  phases: Phase[];
  /** How the run ended, or null while it runs. */
  finished: { status: string; atMs: number } | null;
}

const PHASE_OF: Record<string, PhaseKind | undefined> = {
  admitted: 'queued',
  'awaiting-approval': 'approval',
  running: 'running',
  'coordination-blocked': 'blocked',
  failed: 'retry-wait',
};

export const PHASE_LABEL: Record<PhaseKind, string> = {
  queued: 'queued',
  approval: 'waiting for approval',
  running: 'running',
  'retry-wait': 'retry wait',
  blocked: 'blocked by coordination',
};

/**
 * The phases of a run from its queue attempts: each entry starts a phase that lasts until the
 * next entry. A `failed` entry followed by another is the wait before the retry; the last
 * entry of a finished run is the end, and the open phase of a live run lasts until `now`.
 */
export function attemptTimeline(run: Pick<RunView, 'queueAttempts' | 'status' | 'createdAt' | 'finishedAt' | 'updatedAt'>, now: number): AttemptTimeline {
  const entries = [...run.queueAttempts].sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  const terminal = run.status === 'success' || run.status === 'failed' || run.status === 'cancelled';
  const endMs = terminal ? Date.parse(run.finishedAt ?? run.updatedAt) : now;
  const startMs = entries.length > 0 ? Math.min(Date.parse(entries[0]!.at), Date.parse(run.createdAt)) : Date.parse(run.createdAt);
  const phases: Phase[] = [];
  entries.forEach((entry, i) => {
    const next = entries[i + 1];
    const isLast = next === undefined;
    if (isLast && terminal && (entry.state === 'success' || entry.state === 'failed')) return;
    const kind = PHASE_OF[entry.state];
    if (!kind) return;
    const from = Date.parse(entry.at);
    const to = next ? Date.parse(next.at) : endMs;
    phases.push({ kind, attempt: entry.attempt, startMs: from, endMs: Math.max(from, to), open: isLast && !terminal, detail: entry.detail ?? null });
  });
  return { startMs, endMs: Math.max(endMs, startMs), phases, finished: terminal ? { status: run.status, atMs: endMs } : null };
}
