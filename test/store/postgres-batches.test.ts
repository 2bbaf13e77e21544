import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { markRunning, withEvent } from '../../src/runtime/run-transitions.js';
import { foldTaskCounts, lockStateDocument, recordTasksIn } from '../../src/store/postgres/state.js';
import type { TaskRecord } from '../../src/domain/orchestrator-state.js';
import { makeRun } from '../support/runs.js';
import { REPO_ROOT } from '../support/paths.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: PostgreSQL batch tests skipped';
const schemas: string[] = [];
const stores: PostgresStateStore[] = [];

async function openStore(schema: string, poolSize = 6): Promise<PostgresStateStore> {
  const store = new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize });
  await store.open();
  stores.push(store);
  return store;
}

function freshSchema(prefix: string): string {
  const schema = uniqueSchema(prefix);
  schemas.push(schema);
  return schema;
}

/** Counts the named statements every `pg` client sends while `work` runs. */
async function countingStatements<T>(work: () => Promise<T>): Promise<{ result: T; named: Map<string, number> }> {
  type QueryFn = (...args: unknown[]) => unknown;
  const proto = pg.Client.prototype as unknown as { query: QueryFn };
  const original = proto.query;
  const named = new Map<string, number>();
  proto.query = function counted(this: pg.Client, ...args: unknown[]) {
    const first = args[0] as { name?: string } | string | undefined;
    if (typeof first === 'object' && first?.name) named.set(first.name, (named.get(first.name) ?? 0) + 1);
    return original.apply(this, args);
  };
  try {
    return { result: await work(), named };
  } finally {
    proto.query = original;
  }
}

afterAll(async () => {
  for (const store of stores) await store.close();
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas);
});

describe.skipIf(!TEST_DATABASE_URL)(`PostgreSQL group-committed batches (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  it('commits admissions that arrive together in one multi-row insert, and one refused by the database fails only itself', async () => {
    const store = await openStore(freshSchema('batch_bad'));
    const ids = Array.from({ length: 12 }, (_, i) => `adm-${i}`);
    // PostgreSQL's jsonb refuses the NUL character: the batch's insert fails for this row alone.
    const bad = 'adm-5';
    const { result: settled, named } = await countingStatements(() =>
      Promise.allSettled(
        ids.map((runId) =>
          store.mutateRunAndAppend(
            runId,
            (current) => (current ? null : makeRun({ runId, taskId: runId, payload: runId === bad ? { note: 'nul \u0000 here' } : { n: runId } })),
            (result) => [{ collection: 'telemetry', record: { runId: result.after!.runId }, keep: 100 }],
          ),
        ),
      ),
    );
    // The admissions shared a batch (one multi-row insert tried them together).
    expect(named.get('runs-insert-many') ?? 0).toBeGreaterThanOrEqual(1);
    settled.forEach((outcome, i) => {
      if (ids[i] === bad) {
        expect(outcome.status).toBe('rejected');
      } else {
        expect(outcome.status).toBe('fulfilled');
        if (outcome.status === 'fulfilled') expect(outcome.value).toMatchObject({ changed: true, before: null, after: { runId: ids[i], status: 'pending' } });
      }
    });
    for (const runId of ids) {
      const stored = await store.getRun(runId);
      if (runId === bad) expect(stored).toBeNull();
      else expect(stored?.payload).toEqual({ n: runId });
    }
    // Each admitted run's telemetry is stored once, the refused one's not at all.
    const { items } = await store.listAppended('telemetry', { limit: 100 });
    expect(items.map((item) => item.runId).sort()).toEqual(ids.filter((id) => id !== bad).sort());
    // Numbers are distinct and every admitted run got one.
    const seqs = (await store.listRuns({ limit: 100 })).items.map((run) => run.seq);
    expect(new Set(seqs).size).toBe(ids.length - 1);
  });

  it('inserts new keys arriving together by one statement that is its own commit, and settles stored keys in the transaction', async () => {
    const store = await openStore(freshSchema('batch_new'));
    const telemetry = (result: { after: RunRecord | null }) => [{ collection: 'telemetry' as const, record: { runId: result.after!.runId }, keep: 100 }];
    // Runs with an event: its stamp is the writing transaction's id, which only the statement knows.
    const admit = (runId: string, payload: Record<string, unknown> = { n: runId }) =>
      store.mutateRunAndAppend(runId, (current) => (current ? null : withEvent(makeRun({ runId, taskId: runId, payload }), new Date('2026-01-01T00:00:00.000Z'), { kind: 'queue', name: 'admitted' })), telemetry);
    const stored = ['old-0', 'old-1', 'old-2'];
    for (const runId of stored) await admit(runId);
    const fresh = Array.from({ length: 7 }, (_, i) => `new-${i}`);
    // A payload holding the pending stamp's text is not rewritten: that admission goes through the transaction.
    const tricky = 'new-tricky';
    const trickyPayload = { tx: Number.MIN_SAFE_INTEGER, note: 'kept as sent' };
    // So is one holding the pending number's text (the record's seq until the statement numbers it).
    const unnumbered = 'new-tricky-seq';
    const unnumberedPayload = { seq: Number.MIN_SAFE_INTEGER + 1, note: 'kept as sent' };
    const { result, named } = await countingStatements(() =>
      Promise.all([...stored, ...fresh].map((runId) => admit(runId)).concat(admit(tricky, trickyPayload), admit(unnumbered, unnumberedPayload))),
    );
    expect(named.get('admit-new-runs-telemetry') ?? 0).toBeGreaterThanOrEqual(1);
    expect(named.get('admit-new-runs-telemetry')!).toBeLessThan(fresh.length);
    result.slice(0, stored.length).forEach((outcome, i) => expect(outcome).toMatchObject({ changed: false, before: { runId: stored[i] } }));
    const admitted = result.slice(stored.length);
    for (const outcome of admitted) {
      expect(outcome.changed).toBe(true);
      const row = await store.getRun(outcome.after!.runId);
      // The answer is the stored record: its number and its events' stamps (the writing transaction's id).
      expect(row).toEqual(outcome.after);
      expect(row!.events).toHaveLength(1);
      expect(row!.events[0]!.tx).toBeGreaterThan(0);
    }
    expect((await store.getRun(tricky))?.payload).toEqual(trickyPayload);
    expect((await store.getRun(unnumbered))?.payload).toEqual(unnumberedPayload);
    // `last_tx` is the stamp of the newest event, 0 for a run without events (as a transaction's
    // insert leaves it); the record's seq is its row's, each drawn once and in batch order.
    const columns = await store.pool().query(
      `SELECT run_id, last_tx, COALESCE((doc->'events'->-1->>'tx')::bigint, 0) AS stamp, seq, (doc->>'seq')::bigint AS doc_seq FROM runs WHERE run_id LIKE 'new-%' ORDER BY seq`,
    );
    expect(columns.rows).toHaveLength(fresh.length + 2);
    for (const row of columns.rows) {
      expect(row.last_tx).toBe(row.stamp);
      expect(row.doc_seq).toBe(row.seq);
    }
    const seqs = columns.rows.map((row) => Number(row.seq));
    expect(new Set(seqs).size).toBe(seqs.length);
    const batchOrder = columns.rows.map((row) => row.run_id as string).filter((id) => !id.startsWith('new-tricky'));
    expect(batchOrder).toEqual(fresh);
    // Telemetry once per admitted run, none for the keys found stored.
    const { items } = await store.listAppended('telemetry', { limit: 100 });
    expect(items.map((item) => item.runId).sort()).toEqual([...stored, ...fresh, tricky, unnumbered].sort());
  });

  it('settles duplicates of one key arriving together as one admission and the rest unchanged', async () => {
    const store = await openStore(freshSchema('batch_dup'));
    const attempts = Array.from({ length: 10 }, () =>
      store.mutateRunAndAppend('same-key', (current) => (current ? null : makeRun({ runId: 'same-key', taskId: 'same-key' })), () => []),
    );
    const results = await Promise.all(attempts);
    expect(results.filter((r) => r.changed)).toHaveLength(1);
    expect(results.filter((r) => !r.changed).every((r) => r.before?.runId === 'same-key')).toBe(true);
  });

  it('never lets claim batches of two instances exceed a per-type limit, and claims every run once', async () => {
    const schema = freshSchema('batch_limits');
    const a = await openStore(schema);
    const b = await openStore(schema);
    const limits: Record<string, number> = { 'doc-sync': 3, 'summarize-content': 2 };
    const total = 60;
    for (let i = 0; i < total; i++) {
      const type = i % 3 === 0 ? 'doc-sync' : i % 3 === 1 ? 'summarize-content' : 'health-check';
      const runId = `lim-${String(i).padStart(3, '0')}`;
      await a.mutateRun(runId, (current) => (current ? null : makeRun({ runId, taskId: runId, type })));
    }
    const observer = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await observer.connect();
    const claimedBy = new Map<string, string>();
    const worst = new Map<string, number>();
    try {
      const instance = async (store: PostgresStateStore, owner: string) => {
        let idle = 0;
        while (idle < 5) {
          const now = new Date();
          const claimed: RunRecord[] = await store.claimRuns({ typeLimits: limits }, 8, (run) => markRunning(run, owner, new Date(now.getTime() + 60_000), now));
          const { rows } = await observer.query<{ type: string; n: string }>(`SELECT type, COUNT(*) AS n FROM "${schema}".runs WHERE status = 'running' GROUP BY type`);
          for (const row of rows) worst.set(row.type, Math.max(worst.get(row.type) ?? 0, Number(row.n)));
          for (const run of claimed) {
            expect(claimedBy.has(run.runId)).toBe(false);
            claimedBy.set(run.runId, owner);
          }
          idle = claimed.length === 0 ? idle + 1 : 0;
          // Finish what was claimed a moment later, freeing its type's slots for the other instance.
          await new Promise((resolve) => setTimeout(resolve, 5));
          await Promise.all(
            claimed.map((run) =>
              store.mutateRun(run.runId, (current) =>
                current && current.status === 'running' ? { ...current, status: 'success', queueState: null, claim: null, finishedAt: new Date().toISOString() } : null,
              ),
            ),
          );
          if (claimed.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
        }
      };
      await Promise.all([instance(a, 'instance-a'), instance(b, 'instance-b')]);
    } finally {
      await observer.end();
    }
    expect(claimedBy.size).toBe(total);
    expect(new Set(claimedBy.values())).toEqual(new Set(['instance-a', 'instance-b']));
    expect(worst.get('doc-sync') ?? 0).toBeLessThanOrEqual(3);
    expect(worst.get('summarize-content') ?? 0).toBeLessThanOrEqual(2);
    // The limits were reached, so the check above is not vacuous.
    expect(worst.get('doc-sync')).toBe(3);
    expect(worst.get('summarize-content')).toBe(2);
  }, 60_000);

  it('writes finishes arriving together and their task records in one statement, the history kept to the newest 50', async () => {
    const store = await openStore(freshSchema('batch_finish'));
    const record = (n: number): TaskRecord => ({ type: 'doc-sync', status: 'completed', timestamp: `2026-01-01T00:00:${String(n % 60).padStart(2, '0')}.000Z`, durationMs: n });
    for (let i = 0; i < 45; i++) await store.recordTask(record(i));
    const ids = Array.from({ length: 12 }, (_, i) => `fin-${String(i).padStart(2, '0')}`);
    const now = new Date();
    for (const runId of ids) await store.mutateRun(runId, (current) => (current ? null : markRunning(makeRun({ runId, taskId: runId }), 'instance-a', new Date(now.getTime() + 60_000), now)));
    const { result, named } = await countingStatements(() =>
      Promise.all(
        ids.map((runId, i) =>
          store.finishRun(runId, (current) => (current ? { ...current, status: 'success', queueState: null, claim: null, finishedAt: now.toISOString() } : null), {
            record: record(100 + i),
          }),
        ),
      ),
    );
    expect(result.every((r) => r.changed && r.after?.status === 'success')).toBe(true);
    // At least two finishes shared a batch, and no batch wrote its task records apart.
    expect(named.get('finish-many') ?? 0).toBeGreaterThanOrEqual(1);
    expect(named.get('finish-many')!).toBeLessThan(ids.length);
    expect(named.get('task-records') ?? 0).toBe(0);
    for (const runId of ids) expect((await store.getRun(runId))?.status).toBe('success');
    const state = await store.getState();
    expect(state.tasksProcessed).toBe(57);
    expect(state.taskHistory).toHaveLength(50);
    // The newest 50: the last 38 of the first 45, then the 12 finishes in the order they were written.
    expect(state.taskHistory[0]!.durationMs).toBe(7);
    expect(state.taskHistory.slice(38).map((r) => r.durationMs).sort((x, y) => x - y)).toEqual(ids.map((_, i) => 100 + i));
    // The trim left the table itself at the bound (a read shows the newest 50 whatever it holds).
    const direct = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await direct.connect();
    try {
      const { rows } = await direct.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${store.schema}".task_history`);
      expect(Number(rows[0]!.n)).toBe(50);
    } finally {
      await direct.end();
    }
  });

  it('writes the finishes of runs it claimed by one statement that checks each row is as it left it, and a run written since the slower way', async () => {
    const schema = freshSchema('batch_known');
    const store = await openStore(schema);
    const other = await openStore(schema);
    const record = (n: number): TaskRecord => ({ type: 'doc-sync', status: 'completed', timestamp: `2026-01-01T00:01:${String(n % 60).padStart(2, '0')}.000Z`, durationMs: n });
    for (let i = 0; i < 45; i++) await store.recordTask(record(i));
    const ids = Array.from({ length: 12 }, (_, i) => `known-${String(i).padStart(2, '0')}`);
    const now = new Date();
    for (const runId of ids) await store.mutateRunAndAppend(runId, (current) => (current ? null : withEvent(makeRun({ runId, taskId: runId }), now, { kind: 'queue', name: 'admitted' })), () => []);
    const claimed = await store.claimRuns({ typeLimits: {} }, ids.length, (run) => markRunning(run, 'instance-a', new Date(now.getTime() + 60_000), now));
    expect(claimed).toHaveLength(ids.length);
    // Another instance writes one of them after the claim: its finish must see that write.
    const touched = ids[3]!;
    await other.mutateRun(touched, (current) => (current ? { ...current, operatorSummary: 'noted meanwhile' } : null));
    const finish = (current: RunRecord | null) =>
      current ? withEvent({ ...current, status: 'success' as const, queueState: null, claim: null, finishedAt: now.toISOString() }, now, { kind: 'execution', name: 'succeeded' }) : null;
    const { result, named } = await countingStatements(() => Promise.all(ids.map((runId, i) => store.finishRun(runId, finish, { record: record(100 + i) }))));
    expect(named.get('finish-known-runs') ?? 0).toBeGreaterThanOrEqual(1);
    expect(named.get('finish-known-runs')!).toBeLessThan(ids.length);
    // Only the run written since went through the locking path.
    expect(named.get('runs-lock-many') ?? 0).toBe(1);
    for (const [i, outcome] of result.entries()) {
      expect(outcome.changed).toBe(true);
      const stored = await store.getRun(ids[i]!);
      expect(stored).toEqual(outcome.after);
      expect(stored!.status).toBe('success');
      expect(stored!.events.map((event) => event.name)).toEqual(['admitted', 'started', 'succeeded']);
      expect(stored!.events.every((event) => (event.tx ?? 0) > 0)).toBe(true);
    }
    expect((await store.getRun(touched))?.operatorSummary).toBe('noted meanwhile');
    const state = await store.getState();
    expect(state.tasksProcessed).toBe(57);
    expect(state.taskHistory).toHaveLength(50);
    expect(state.taskHistory.slice(38).map((r) => r.durationMs).sort((x, y) => x - y)).toEqual(ids.map((_, i) => 100 + i));
    const { rows } = await store.pool().query<{ n: string }>('SELECT COUNT(*) AS n FROM task_history');
    expect(Number(rows[0]!.n)).toBe(50);
  });

  it('fills a claim batch past runs of a type at its limit with runs of other types behind them', async () => {
    const store = await openStore(freshSchema('batch_fill'));
    for (let i = 0; i < 6; i++) {
      const runId = `fill-${i}`;
      await store.mutateRun(runId, (current) => (current ? null : makeRun({ runId, taskId: runId, type: i < 4 ? 'doc-sync' : 'health-check' })));
    }
    const now = new Date();
    const claimed = await store.claimRuns({ typeLimits: { 'doc-sync': 1 } }, 3, (run) => markRunning(run, 'filler', new Date(now.getTime() + 60_000), now));
    expect(claimed.map((run) => run.runId)).toEqual(['fill-0', 'fill-4', 'fill-5']);
    expect(claimed.every((run) => run.status === 'running' && run.claim?.ownerId === 'filler')).toBe(true);
  });

  it('loses no run when the process dies between a batch commit and its replies', async () => {
    const schema = freshSchema('batch_crash');
    const url = postgresUrlWithSchema(TEST_DATABASE_URL!, schema);
    const count = 16;
    const prefix = 'crash';
    const signal = await new Promise<NodeJS.Signals | number | null>((resolve, reject) => {
      const child = spawn(process.execPath, ['--import', 'tsx', join(REPO_ROOT, 'test/support/batch-crash-writer.ts'), url, prefix, String(count)], {
        cwd: REPO_ROOT,
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('close', (code, sig) => (sig === 'SIGKILL' ? resolve(sig) : reject(new Error(`writer ended with ${String(code)}: ${stderr}`))));
    });
    expect(signal).toBe('SIGKILL');
    const store = await openStore(schema);
    const committed = (await store.listRuns({ limit: 100 })).items;
    // The batch committed before the crash: its runs are stored, whole and ready to run.
    expect(committed.length).toBeGreaterThanOrEqual(2);
    expect(committed.every((run) => run.status === 'pending' && run.queueState === 'ready')).toBe(true);
    // The callers never got an answer and send every admission again: the committed ones are
    // found (no second run), the others admitted now, so each key has exactly one run.
    const retried = await Promise.all(
      Array.from({ length: count }, (_, i) => {
        const runId = `${prefix}-${i}`;
        return store.mutateRunAndAppend(runId, (current) => (current ? null : makeRun({ runId, taskId: runId })), () => []);
      }),
    );
    const found = retried.filter((r) => !r.changed).map((r) => r.before!.runId);
    expect(found.sort()).toEqual(committed.map((run) => run.runId).sort());
    const all = await store.listRuns({ limit: 100 });
    expect(all.total).toBe(count);
    expect(new Set(all.items.map((run) => run.runId)).size).toBe(count);
  }, 60_000);

  describe('the processed-task count without a hot row', () => {
    const task = (n: number): TaskRecord => ({ type: 'doc-sync', status: 'completed', timestamp: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(), durationMs: n });

    /** A client in an open transaction that has recorded `count` tasks and not committed. */
    async function openFinish(store: PostgresStateStore, schema: string, count: number, from: number): Promise<pg.Client> {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL! });
      await client.connect();
      await client.query(`SET search_path TO "${schema}"`);
      await client.query('BEGIN');
      await recordTasksIn(client, store.stateKey, Array.from({ length: count }, (_, i) => task(from + i)));
      return client;
    }

    it('lets a finish commit while another instance\'s finish is still open, and counts both', async () => {
      const schema = freshSchema('count_side');
      const a = await openStore(schema);
      const b = await openStore(schema);
      const open = await openFinish(a, schema, 3, 0);
      try {
        // Before, both took the state row's lock to add to its count: this waited for the commit above.
        const recorded = await Promise.race([
          b.recordTask(task(10)).then(() => 'committed' as const),
          new Promise<'blocked'>((resolve) => setTimeout(() => resolve('blocked'), 3000)),
        ]);
        expect(recorded).toBe('committed');
        expect((await a.getState()).tasksProcessed).toBe(1);
        await open.query('COMMIT');
      } finally {
        await open.end();
      }
      const state = await a.getState();
      expect(state.tasksProcessed).toBe(4);
      expect(state.taskHistory.map((r) => r.durationMs).sort((x, y) => x - y)).toEqual([0, 1, 2, 10]);
    }, 20_000);

    it('folds the committed deltas into the count without changing what a reader sees, beside an open finish, and skips while a document writer holds the row', async () => {
      const schema = freshSchema('count_fold');
      const store = await openStore(schema);
      for (let i = 0; i < 6; i++) await store.recordTask(task(i));
      // Closed, so its own fold timer cannot fold between the steps below.
      await store.close();
      let open: pg.Client | null = null;
      const direct = new pg.Client({ connectionString: TEST_DATABASE_URL! });
      await direct.connect();
      const writer = new pg.Client({ connectionString: TEST_DATABASE_URL! });
      await writer.connect();
      try {
        await direct.query(`SET search_path TO "${schema}"`);
        await writer.query(`SET search_path TO "${schema}"`);
        const deltas = async () => Number((await direct.query<{ n: string }>('SELECT COUNT(*) AS n FROM task_count_deltas')).rows[0]!.n);
        // What a reader sees: the column plus the deltas (state.ts).
        const processed = async () =>
          Number((await direct.query<{ n: string }>('SELECT tasks_processed + COALESCE((SELECT SUM(n) FROM task_count_deltas), 0) AS n FROM state_documents')).rows[0]!.n);
        // A document writer holds the row (FOR UPDATE): the fold leaves everything for later.
        await writer.query('BEGIN');
        await lockStateDocument(writer, store.stateKey);
        expect(await foldTaskCounts(direct, store.stateKey)).toBe(0);
        expect(await deltas()).toBe(6);
        await writer.query('COMMIT');

        // A finish holds the row (FOR KEY SHARE): the fold takes the six committed deltas, not its own.
        open = await openFinish(store, schema, 2, 6);
        expect(await foldTaskCounts(direct, store.stateKey)).toBe(6);
        expect(await processed()).toBe(6);
        await open.query('COMMIT');
        expect(await processed()).toBe(8);
        expect(await foldTaskCounts(direct, store.stateKey)).toBe(1);
        expect(await processed()).toBe(8);
        expect(await deltas()).toBe(0);
        expect(await foldTaskCounts(direct, store.stateKey)).toBe(0);
        expect(await processed()).toBe(8);
      } finally {
        await open?.end();
        await writer.end();
        await direct.end();
      }
    }, 20_000);

    it('keeps a count set by a state write whatever deltas are waiting, and the history bounded to the newest 50', async () => {
      const schema = freshSchema('count_set');
      const store = await openStore(schema);
      await Promise.all(Array.from({ length: 60 }, (_, i) => store.recordTask(task(i))));
      const before = await store.getState();
      expect(before.tasksProcessed).toBe(60);
      expect(before.taskHistory).toHaveLength(50);
      // An import sets the count outright; the deltas recorded before it must not be added again.
      const after = await store.mutateState((current) => ({ ...current, tasksProcessed: 1000 }));
      expect(after.tasksProcessed).toBe(1000);
      expect((await store.getState()).tasksProcessed).toBe(1000);
      await store.recordTask(task(99));
      expect((await store.getState()).tasksProcessed).toBe(1001);
    }, 20_000);
  });
});
