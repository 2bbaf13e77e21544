import type { RunLogLine } from '../domain/run-log-line.js';
import type { KeptLine } from './bounded-lines.js';

/**
 * How run logs sit in the state store (keyed documents, so every driver and every instance
 * sharing the store sees them):
 * - `runLogs/<attemptId>`: the attempt's kept lines, rewritten whole at each flush;
 * - `runLogIndex/<attemptId>`: a small entry naming the run, written before the first lines, so
 *   the retention sweep can list what exists without reading every attempt's lines.
 * `taskId` tells the logs of a run apart from those of an earlier run with the same id (an
 * idempotency key used again after the first run was pruned).
 */
export const RUN_LOG_COLLECTION = 'runLogs';
export const RUN_LOG_INDEX_COLLECTION = 'runLogIndex';

export interface StoredAttemptLog {
  runId: string;
  taskId: string;
  attemptId: string;
  lines: KeptLine[];
  truncated: number;
  updatedAt: string;
}

export interface RunLogIndexEntry {
  runId: string;
  taskId: string;
  attemptId: string;
  /** The run's admission order: the retention sweep walks the oldest runs first, as pruning does. */
  runSeq: number;
}

const STREAMS: ReadonlySet<unknown> = new Set<RunLogLine['stream']>(['stderr', 'stdout', 'log']);

function isKeptLine(value: unknown): value is KeptLine {
  const line = value as Partial<KeptLine> | null;
  return typeof line === 'object' && line !== null && typeof line.at === 'string' && typeof line.line === 'string' && STREAMS.has(line.stream);
}

/** The stored document read back, or null when it is not one this module wrote. */
export function parseStoredAttemptLog(doc: Record<string, unknown> | null): StoredAttemptLog | null {
  if (doc === null) return null;
  const { runId, taskId, attemptId, lines, truncated, updatedAt } = doc;
  if (typeof runId !== 'string' || typeof taskId !== 'string' || typeof attemptId !== 'string') return null;
  if (!Array.isArray(lines) || typeof truncated !== 'number' || typeof updatedAt !== 'string') return null;
  return { runId, taskId, attemptId, lines: lines.filter(isKeptLine), truncated, updatedAt };
}

export function parseIndexEntry(doc: Record<string, unknown>): RunLogIndexEntry | null {
  const { runId, taskId, attemptId, runSeq } = doc;
  if (typeof runId !== 'string' || typeof taskId !== 'string' || typeof attemptId !== 'string' || typeof runSeq !== 'number') return null;
  return { runId, taskId, attemptId, runSeq };
}
