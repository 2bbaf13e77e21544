import type pg from 'pg';
import type { RunRecord } from '../../domain/run-record.js';
import { storedRun } from '../run-rules.js';
import { retentionCount } from '../retention.js';
import type { AppendCollection, AppendRecord, AppendsFor, MutateResult, RunMutator, TaskOutcomeWrite } from '../types.js';
import { appendRecords } from './append.js';
import { ALONE } from './group-commit.js';
import { frozenRun, stampedIn, TX_ID, type StampedRun } from './save-run.js';
import { insertRuns, runsUpdate, runsUpdateText, updateRuns } from './save-runs.js';
import { lockStateDocument, mutateStateIn, recordTasksIn, taskRecordCtes, taskRecordValues } from './state.js';
import type { TaskRecord } from '../../domain/orchestrator-state.js';

/**
 * The work of one group-committed batch (group-commit.ts) of run writes, inside its transaction:
 * the batch's runs read and locked by one statement, written back by one insert and one update,
 * whatever their number. Every item's run id is distinct within a batch.
 */

export interface RunWrite {
  runId: string;
  mutate: RunMutator;
  appendsFor: AppendsFor;
}

export interface RunFinish {
  runId: string;
  mutate: RunMutator;
  task: TaskOutcomeWrite;
}

/**
 * Locks the batch's existing runs, in run id order as every multi-row locker takes them (two
 * batches then wait on each other in one direction only, never in a cycle), and returns the
 * transaction's id with them (one row with a null doc when none exists yet) for the stamps.
 */
async function lockRuns(client: pg.PoolClient, runIds: string[]): Promise<{ tx: number; existing: Map<string, RunRecord> }> {
  const { rows } = await client.query<{ tx: string; run_id: string | null; doc: string | null }>({
    name: 'runs-lock-many',
    text: `SELECT x.tx, l.run_id, l.doc FROM (SELECT ${TX_ID}) AS x
       LEFT JOIN LATERAL (SELECT run_id, doc::text AS doc FROM runs WHERE run_id = ANY($1::text[]) ORDER BY run_id FOR UPDATE) AS l ON true`,
    values: [runIds],
  });
  const existing = new Map<string, RunRecord>();
  for (const row of rows) if (row.run_id !== null && row.doc !== null) existing.set(row.run_id, frozenRun(row.doc));
  return { tx: Number(rows[0]!.tx), existing };
}

/** A mutator's answer (given the frozen locked run), or ALONE when it threw: the item alone then reproduces the error for itself only. */
function tryMutate(mutate: RunMutator, locked: RunRecord | null): RunRecord | null | typeof ALONE {
  try {
    return mutate(locked);
  } catch {
    return ALONE;
  }
}

/**
 * mutateRunAndAppend for each item (admissions, mostly). A new run another transaction inserted
 * first is settled alone after the commit, where its mutator sees that run.
 */
export async function mutateRunsAndAppend(client: pg.PoolClient, items: RunWrite[]): Promise<Array<MutateResult | typeof ALONE>> {
  const { tx, existing } = await lockRuns(
    client,
    items.map((item) => item.runId),
  );
  const outcomes: Array<MutateResult | typeof ALONE> = [];
  const inserts: Array<{ index: number; run: StampedRun }> = [];
  const updates: Array<{ index: number; before: RunRecord; run: StampedRun }> = [];
  items.forEach((item, index) => {
    const before = existing.get(item.runId) ?? null;
    const next = tryMutate(item.mutate, before);
    outcomes.push(ALONE);
    if (next === ALONE) return;
    if (next === null) {
      outcomes[index] = { before, after: before, changed: false };
    } else if (before === null) {
      inserts.push({ index, run: stampedIn(null, storedRun(item.runId, null, next, () => 0), tx) });
    } else {
      updates.push({ index, before, run: stampedIn(before, storedRun(item.runId, before, next, () => before.seq), tx) });
    }
  });
  if (inserts.length > 0) {
    const inserted = await insertRuns(
      client,
      inserts.map((entry) => entry.run),
    );
    for (const { index, run } of inserts) {
      const after = inserted.get(run.run.runId) ?? null;
      if (after !== null) outcomes[index] = { before: null, after, changed: true };
    }
  }
  if (updates.length > 0) {
    const updated = await updateRuns(
      client,
      updates.map((entry) => entry.run),
      updates.map((entry) => entry.before),
    );
    updates.forEach(({ index, before }, i) => {
      outcomes[index] = { before, after: updated[i]!, changed: true };
    });
  }
  await appendAll(
    items.flatMap((item, index) => {
      const outcome = outcomes[index]!;
      return outcome !== ALONE && outcome.changed ? item.appendsFor(outcome) : [];
    }),
    client,
  );
  return outcomes;
}

/** The batch's appends, one statement per collection and retention. */
async function appendAll(records: AppendRecord[], client: pg.PoolClient): Promise<void> {
  const groups = new Map<string, { collection: AppendCollection; keep: number; records: Array<Record<string, unknown>> }>();
  for (const { collection, record, keep } of records) {
    const count = retentionCount(keep);
    const key = `${collection}\u0000${count}`;
    const group = groups.get(key) ?? { collection, keep: count, records: [] };
    group.records.push(record);
    groups.set(key, group);
  }
  for (const group of groups.values()) await appendRecords(client, group.collection, group.records, group.keep);
}

/**
 * finishRun for each item: the runs transitioned by one update, then the state's task records
 * in item order (a handler's own state change applied just before its record, as finishRun does).
 */
export async function finishRuns(client: pg.PoolClient, stateKey: string, items: RunFinish[]): Promise<Array<MutateResult | typeof ALONE>> {
  const { tx, existing } = await lockRuns(
    client,
    items.map((item) => item.runId),
  );
  const outcomes: Array<MutateResult | typeof ALONE> = [];
  const updates: Array<{ index: number; before: RunRecord; run: StampedRun }> = [];
  items.forEach((item, index) => {
    const before = existing.get(item.runId) ?? null;
    // Only an existing run can finish an attempt: an absent one is left absent.
    const next = before === null ? null : tryMutate(item.mutate, before);
    if (next === ALONE) {
      outcomes.push(ALONE);
    } else if (before === null || next === null) {
      outcomes.push({ before, after: before, changed: false });
    } else {
      outcomes.push(ALONE);
      updates.push({ index, before, run: stampedIn(before, storedRun(item.runId, before, next, () => before.seq), tx) });
    }
  });
  if (updates.length === 0) return outcomes;
  if (!updates.some(({ index }) => items[index]!.task.stateUpdate)) {
    // The common case, no handler changing the document: the runs and their task records in one statement.
    const update = runsUpdate(
      updates.map((entry) => entry.run),
      updates.map((entry) => entry.before),
    );
    await client.query({
      name: 'finish-many',
      text: `WITH finished AS (${runsUpdateText(1)} RETURNING 1), ${taskRecordCtes(update.values.length + 1)} SELECT 1`,
      values: [...update.values, ...taskRecordValues(stateKey, updates.map(({ index }) => items[index]!.task.record))],
    });
    updates.forEach(({ index, before }, i) => {
      outcomes[index] = { before, after: update.stored[i]!, changed: true };
    });
    return outcomes;
  }
  const updated = await updateRuns(
    client,
    updates.map((entry) => entry.run),
    updates.map((entry) => entry.before),
  );
  await lockStateDocument(client, stateKey);
  let records: TaskRecord[] = [];
  for (const [i, { index, before }] of updates.entries()) {
    outcomes[index] = { before, after: updated[i]!, changed: true };
    const { task } = items[index]!;
    if (task.stateUpdate) {
      await recordTasksIn(client, stateKey, records);
      records = [];
      await mutateStateIn(client, stateKey, task.stateUpdate);
    }
    records.push(task.record);
  }
  await recordTasksIn(client, stateKey, records);
  return outcomes;
}
