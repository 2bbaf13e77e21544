import type { RunRecord } from '../../domain/run-record.js';
import type { OrchestratorState, TaskRecord } from '../../domain/orchestrator-state.js';
import type { AppendCollection } from '../types.js';
import { isPlainObject, runProblem, stateProblem } from '../record-checks.js';

/**
 * One line of `<state>.journal`. Every change is a full record (never a delta) tagged with the
 * store-wide `seq`, so replaying a line whose seq the snapshot already covers is simply skipped
 * and replay is idempotent.
 */
export type JournalEntry =
  | { seq: number; op: 'run'; record: RunRecord }
  | { seq: number; op: 'run-delete'; runId: string }
  | { seq: number; op: 'state'; state: OrchestratorState }
  | { seq: number; op: 'task'; record: TaskRecord }
  | { seq: number; op: 'append'; collection: AppendCollection; record: Record<string, unknown>; keep: number }
  | { seq: number; op: 'doc'; collection: string; id: string; doc: Record<string, unknown> }
  | { seq: number; op: 'doc-delete'; collection: string; id: string };

export const APPEND_COLLECTIONS: readonly AppendCollection[] = ['telemetry', 'milestones'];

/** Parses one journal line; returns the reason when it is not a well-formed entry. */
export function parseJournalLine(line: string): { entry: JournalEntry } | { problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    return { problem: `not valid JSON (${(err as Error).message})` };
  }
  const problem = journalEntryProblem(value);
  return problem === null ? { entry: value as JournalEntry } : { problem };
}

/** Why `value` is not a journal entry the store can replay, or null when it is one. */
export function journalEntryProblem(value: unknown): string | null {
  if (!isPlainObject(value)) return 'not an object';
  if (!Number.isSafeInteger(value.seq) || (value.seq as number) < 1) return 'seq is not a positive integer';
  switch (value.op) {
    case 'run':
      return runProblem(value.record, 'record');
    case 'run-delete':
      return typeof value.runId === 'string' ? null : 'runId is not a string';
    case 'state':
      return isPlainObject(value.state) ? stateProblem(value.state, 'state.', true) : 'state is not an object';
    case 'task':
      if (!isPlainObject(value.record)) return 'record is not an object';
      return typeof value.record.type === 'string' && typeof value.record.timestamp === 'string'
        ? null
        : 'record is not a task record';
    case 'append':
      if (!(APPEND_COLLECTIONS as unknown[]).includes(value.collection)) return 'collection is not an append collection';
      if (!Number.isSafeInteger(value.keep)) return 'keep is not an integer';
      return isPlainObject(value.record) ? null : 'record is not an object';
    case 'doc':
      if (typeof value.collection !== 'string' || typeof value.id !== 'string') return 'collection or id is not a string';
      return isPlainObject(value.doc) ? null : 'doc is not an object';
    case 'doc-delete':
      return typeof value.collection === 'string' && typeof value.id === 'string' ? null : 'collection or id is not a string';
    default:
      return `unknown op ${JSON.stringify(value.op)}`;
  }
}
