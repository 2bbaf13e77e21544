import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { appendRecord } from '../../src/store/postgres/append.js';
import { initialLayout } from '../../src/store/postgres/migrations/0001-initial-layout.js';
import { CANDIDATES_SQL } from '../../src/store/postgres/claim-next-run.js';
import { recoverInterrupted, isOwnedAttempt, markRunning } from '../../src/runtime/run-transitions.js';
import { describeStoreConformance } from './conformance.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';
import { postgresUrlWithSchema, TEST_DATABASE_URL, dropTestSchemas, uniqueSchema } from '../support/postgres.js';

const SKIP_REASON = 'TEST_DATABASE_URL unset: PostgreSQL store tests skipped';
const schemasByDir = new Map<string, string>();

/** One schema per conformance directory, so reopening a directory reaches the same data. */
function storeFor(dir: string): PostgresStateStore {
  let schema = schemasByDir.get(dir);
  if (schema === undefined) {
    schema = uniqueSchema(`conf_${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`);
    schemasByDir.set(dir, schema);
  }
  return new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 8 });
}

afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [...schemasByDir.values()]);
});

describe.skipIf(!TEST_DATABASE_URL)(`PostgresStateStore (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  describeStoreConformance('PostgresStateStore', storeFor, { shared: true });

  describe('on PostgreSQL', () => {
    const stores: PostgresStateStore[] = [];
    async function open(dir = `pg-${randomBytes(4).toString('hex')}`, stateKey?: string): Promise<PostgresStateStore> {
      const base = storeFor(dir);
      const store = stateKey === undefined ? base : (openStateStore(`docdb:${stateKey}`, { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, base.schema) }) as PostgresStateStore);
      await store.open();
      stores.push(store);
      return store;
    }
    afterAll(async () => {
      for (const store of stores) await store.close();
    });

    it('applies versioned migrations once under an advisory lock when instances start together', async () => {
      const dir = 'migrations-race';
      const starting = Array.from({ length: 4 }, () => storeFor(dir));
      await Promise.all(starting.map((s) => s.open()));
      stores.push(...starting);
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        const { rows } = await client.query(`SELECT version, description FROM "${starting[0]!.schema}".schema_migrations`);
        expect(rows).toEqual([
          { version: 1, description: 'runs, state documents, task history, append collections, keyed documents' },
          { version: 2, description: 'append collections numbered by a sequence per collection' },
          { version: 3, description: 'write stamps of run events' },
          { version: 4, description: 'processed-task counts as deltas, an index of queued runs' },
          { version: 5, description: 'run records compressed with lz4 where the server has it, the redundant index of ready runs dropped' },
          { version: 6, description: 'runs indexed by status in seq order (pages of one status no longer walk the table)' },
          { version: 7, description: 'concurrency key, priority and start time of runs as columns, for claims in fair order' },
          { version: 8, description: 'runs indexed by start time (rate buckets count recent starts)' },
          { version: 9, description: 'flow steps stored waiting and skipped, runs indexed by flow id and status' },
          { version: 10, description: 'ready runs indexed by (key, priority, type) group heads and by not-before time, for claims that read a bounded set' },
          { version: 11, description: 'runs indexed by their tags' },
        ]);
        const schema = starting[0]!.schema;
        const indexes = await client.query(`SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = $1 AND tablename = 'runs'`, [schema]);
        expect(indexes.rows.map((r) => r.indexname)).not.toContain('runs_claim');
        expect(indexes.rows.find((r) => r.indexname === 'runs_status')?.indexdef).toMatch(/\(status, seq\)$/);
        // Only tagged runs are in the tags index, and the listing's tag clause can use it.
        expect(indexes.rows.find((r) => r.indexname === 'runs_tags')?.indexdef).toMatch(/USING gin .*jsonb_path_ops\) WHERE \(doc \? 'tags'::text\)$/);
        await client.query('BEGIN');
        await client.query(`SET LOCAL search_path TO "${schema}"; SET LOCAL enable_seqscan = off`);
        const plan = await client.query(`EXPLAIN SELECT doc FROM runs WHERE doc ? 'tags' AND doc -> 'tags' @> '["team:core"]'::jsonb`);
        await client.query('ROLLBACK');
        expect(plan.rows.map((r) => r['QUERY PLAN']).join('\n')).toMatch(/runs_tags/);
        const lz4 = await client.query(`SELECT 'lz4' = ANY (enumvals) AS has FROM pg_settings WHERE name = 'default_toast_compression'`);
        const compression = await client.query(`SELECT attcompression FROM pg_attribute WHERE attrelid = $1::regclass AND attname = 'doc'`, [`"${schema}".runs`]);
        if (lz4.rows[0]?.has === true) expect(compression.rows[0].attcompression).toBe('l');
      } finally {
        await client.end();
      }
      expect((await starting[0]!.health()).detail).toMatch(/^PostgreSQL \d+\.\d+.*, schema .+, layout version 11, shared by instances$/);
    });

    it('finds claim candidates reading a few rows of each group, not every ready run (EXPLAIN ANALYZE)', async () => {
      const store = await open();
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`SET search_path TO "${store.schema}"`);
        const doc = (key: string) => `jsonb_build_object('concurrencyKey', '${key}', 'priority', 3)`;
        const row = (id: string, key: string) =>
          `SELECT ${id}, nextval('run_seq'), 'doc-sync', 'pending', 'ready', false, 1, '2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.000Z', ${doc(key)}`;
        const columns = 'run_id, seq, type, status, queue_state, internal, attempt, created_at, updated_at, doc';
        await client.query(`INSERT INTO runs (${columns}) ${row("'flood-' || i", 'flood')} FROM generate_series(1, 5000) AS i`);
        await client.query(`INSERT INTO runs (${columns}) ${row("'light-0'", 'light')}`);
        await client.query(`INSERT INTO runs (${columns}) ${row("'later-0'", 'light')}`.replace(`${doc('light')}`, `${doc('light')} || '{"notBefore": "2999-01-01T00:00:00.000Z"}'`));
        await client.query('ANALYZE runs');
        const values = [[], [], 9, '2026-03-01T12:00:00.000Z'];
        const { rows } = await client.query(CANDIDATES_SQL, values);
        expect(rows.filter((r) => r.concurrency_key === 'flood')).toHaveLength(9);
        expect(rows.filter((r) => r.concurrency_key === 'light').map((r) => r.run_id)).toEqual(['light-0']);
        const plan = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${CANDIDATES_SQL}`, values);
        // Rows the scans of `runs` produced, over every loop: a window over the ready runs reads 5,001.
        let read = 0;
        const walk = (node: Record<string, unknown>) => {
          if (node['Relation Name'] === 'runs') read += Number(node['Actual Rows']) * Number(node['Actual Loops']);
          for (const child of (node.Plans as Array<Record<string, unknown>> | undefined) ?? []) walk(child);
        };
        walk(plan.rows[0]['QUERY PLAN'][0].Plan);
        expect(read).toBeGreaterThanOrEqual(10);
        expect(read).toBeLessThan(50);
      } finally {
        await client.end();
      }
    });

    it('keeps each docdb:<key> OrchestratorState apart while runs are shared', async () => {
      const dir = 'docdb-keys';
      const alpha = await open(dir, 'alpha');
      const beta = await open(dir, 'beta');
      expect(alpha.target).toBe('docdb:alpha');
      await alpha.mutateState((s) => ({ ...s, notes: 'alpha notes' }));
      await alpha.recordTask({ type: 'doc-sync', status: 'completed', timestamp: '2026-01-01T00:00:00Z', durationMs: 3 });
      expect(await beta.getState()).toMatchObject({ tasksProcessed: 0, taskHistory: [] });
      expect((await beta.getState()).notes).toBeUndefined();
      expect(await alpha.getState()).toMatchObject({ tasksProcessed: 1, notes: 'alpha notes' });
      await alpha.mutateRun('shared-run', insertIfAbsent(makeRun({ runId: 'shared-run' })));
      expect((await beta.getRun('shared-run'))?.runId).toBe('shared-run');
    });

    it('fences a stale owner: once its lease expired and another instance recovered the run, its finish is refused', async () => {
      const dir = 'fencing';
      const a = await open(dir);
      const b = await open(dir);
      await a.mutateRun('fenced', insertIfAbsent(makeRun({ runId: 'fenced' })));
      const t0 = new Date('2026-01-01T00:00:00Z');
      const claimed = await a.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'instance-a', new Date(t0.getTime() + 1000), t0));
      expect(claimed).toMatchObject({ status: 'running', attempt: 1, claim: { ownerId: 'instance-a' } });

      // Instance b sees the lease expired (a is stalled), recovers the run and claims the new attempt.
      const later = new Date(t0.getTime() + 5000);
      const recovered = await b.mutateRun('fenced', (cur) =>
        cur && cur.status === 'running' && new Date(cur.claim!.leaseUntil) <= later ? recoverInterrupted(cur, later) : null,
      );
      expect(recovered.after).toMatchObject({ status: 'pending', queueState: 'ready', attempt: 2 });
      const reclaimed = await b.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'instance-b', new Date(later.getTime() + 60_000), later));
      expect(reclaimed).toMatchObject({ attempt: 2, claim: { ownerId: 'instance-b' } });

      // a wakes up and tries to finish its attempt 1: the guard inside the row lock refuses it.
      const staleFinish = await a.mutateRun('fenced', (cur) =>
        isOwnedAttempt(cur, 'instance-a', 1) ? { ...cur, status: 'success', queueState: null } : null,
      );
      expect(staleFinish.changed).toBe(false);
      const finish = await b.mutateRun('fenced', (cur) =>
        isOwnedAttempt(cur, 'instance-b', 2) ? { ...cur, status: 'success', queueState: null, claim: null } : null,
      );
      expect(finish.after).toMatchObject({ status: 'success', attempt: 2 });
    });

    it('claims in parallel from three instances without taking a run twice', async () => {
      const dir = 'parallel-claims';
      const instances = [await open(dir), await open(dir), await open(dir)];
      for (let i = 0; i < 60; i++) await instances[i % 3]!.mutateRun(`p-${i}`, insertIfAbsent(makeRun({ runId: `p-${i}` })));
      const claims = await Promise.all(
        Array.from({ length: 90 }, (_, i) =>
          instances[i % 3]!.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, `instance-${i % 3}`, new Date(), new Date())),
        ),
      );
      const taken = claims.filter((c) => c !== null).map((c) => c!.runId);
      expect(taken).toHaveLength(60);
      expect(new Set(taken).size).toBe(60);
    });

    it('holds a per-key cap of 2 and a bucket cap across three instances claiming at once', async () => {
      const dir = 'bucket-caps';
      const instances = [await open(dir), await open(dir), await open(dir)];
      for (let i = 0; i < 30; i++) await instances[0]!.mutateRun(`b-${i}`, insertIfAbsent(makeRun({ runId: `b-${i}`, concurrencyKey: `key-${i % 3}` })));
      const buckets = [
        { name: 'pairs', match: { keyPrefix: 'key-' }, perKey: 2 },
        { name: 'all', match: {}, concurrency: 5 },
      ];
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          instances[i % 3]!.claimRuns({ typeLimits: {}, buckets }, 2, (r) => markRunning(r, `instance-${i % 3}`, new Date(), new Date())),
        ),
      );
      const taken = claims.flat();
      expect(taken).toHaveLength(5);
      expect(new Set(taken.map((r) => r.runId)).size).toBe(5);
      for (const key of ['key-0', 'key-1', 'key-2']) expect(taken.filter((r) => r.concurrencyKey === key).length).toBeLessThanOrEqual(2);
    });

    it('upgrades layout 1 to 2: append rows numbered per collection in id order, each sequence continuing after them', async () => {
      const schema = uniqueSchema('layout1');
      schemasByDir.set(`layout1-${schema}`, schema);
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        // A schema as layout 1 left it, with the two collections interleaved in id order.
        await client.query(`CREATE SCHEMA "${schema}"`);
        await client.query(`SET search_path = "${schema}"`);
        await client.query('CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())');
        await client.query(initialLayout.sql);
        await client.query('INSERT INTO schema_migrations (version, description) VALUES (1, $1)', [initialLayout.description]);
        for (let i = 0; i < 6; i++) {
          await client.query(`INSERT INTO appended (collection, record) VALUES ('telemetry', $1)`, [JSON.stringify({ n: i })]);
          if (i % 2 === 0) await client.query(`INSERT INTO appended (collection, record) VALUES ('milestones', $1)`, [JSON.stringify({ m: i })]);
        }
      } finally {
        await client.end();
      }
      const store = new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 2 });
      await store.open();
      stores.push(store);
      const numbered = await store.pool().query('SELECT collection, seq, record FROM appended ORDER BY id');
      expect(numbered.rows.filter((r) => r.collection === 'telemetry').map((r) => [Number(r.seq), r.record.n])).toEqual([
        [1, 0], [2, 1], [3, 2], [4, 3], [5, 4], [6, 5],
      ]);
      expect(numbered.rows.filter((r) => r.collection === 'milestones').map((r) => [Number(r.seq), r.record.m])).toEqual([
        [1, 0], [2, 2], [3, 4],
      ]);
      // The next append continues the numbering, and the cut keeps exactly the newest `keep`.
      await store.append('telemetry', { n: 6 }, 4);
      await store.append('milestones', { m: 6 }, 10);
      const telemetry = await store.listAppended('telemetry', { limit: 10 });
      expect(telemetry).toEqual({ items: [{ n: 6 }, { n: 5 }, { n: 4 }, { n: 3 }], total: 4 });
      expect((await store.listAppended('milestones', { limit: 10 })).items).toEqual([{ m: 6 }, { m: 4 }, { m: 2 }, { m: 0 }]);
      const last = await store.pool().query(`SELECT MAX(seq) AS seq FROM appended WHERE collection = 'telemetry'`);
      expect(Number(last.rows[0].seq)).toBe(7);
    });

    /** Shifts the telemetry rows' numbers (and the sequence) so the newest is `last`: the next append draws `last + 1`. */
    async function renumberUpTo(store: PostgresStateStore, last: number): Promise<void> {
      await store.pool().query(`UPDATE appended SET seq = seq + $1 - (SELECT MAX(seq) FROM appended WHERE collection = 'telemetry') WHERE collection = 'telemetry'`, [last]);
      await store.pool().query(`SELECT setval('appended_seq_telemetry', $1)`, [last]);
    }

    it('keeps the newest `keep` appends of instances appending at once, exactly once an append crosses a full-trim boundary', async () => {
      const dir = 'racing-appends';
      const instances = [await open(dir), await open(dir), await open(dir)];
      await Promise.all(Array.from({ length: 120 }, (_, i) => instances[i % 3]!.append('telemetry', { n: i }, 25)));
      // A racing append may commit below another's cut after that cut's snapshot: a later trim removes it.
      await instances[1]!.append('telemetry', { n: 120 }, 25);
      const raced = await instances[0]!.listAppended('telemetry', { limit: 200 });
      expect(raced.items[0]).toEqual({ n: 120 });
      expect(raced.total).toBeGreaterThanOrEqual(25);
      expect(raced.total).toBeLessThanOrEqual(121);
      // One append in 4,096 trims the whole range below its cut, whatever was left there.
      await renumberUpTo(instances[0]!, 8191);
      await instances[2]!.append('telemetry', { n: 121 }, 25);
      const { items, total } = await instances[0]!.listAppended('telemetry', { limit: 100 });
      expect(total).toBe(25);
      expect(items[0]).toEqual({ n: 121 });
    });

    it('trims the rows its records push out without walking the rows deleted before them', async () => {
      const store = await open('trim-window');
      for (let i = 0; i < 300; i++) await store.append('telemetry', { n: i }, 10);
      // Rows below the trim's window that are still there (as a rolled-back trim leaves them)
      // stay until a full trim: the trim reads its own window, not the whole range.
      await store.pool().query(`INSERT INTO appended (collection, seq, record) VALUES ('telemetry', 5, '{"n":"left"}')`);
      await store.append('telemetry', { n: 300 }, 10);
      const rows = await store.pool().query(`SELECT record FROM appended WHERE collection = 'telemetry' ORDER BY seq`);
      expect(rows.rows.map((r) => r.record.n)).toEqual(['left', 291, 292, 293, 294, 295, 296, 297, 298, 299, 300]);
      await renumberUpTo(store, 4095);
      await store.append('telemetry', { n: 301 }, 10);
      const after = await store.listAppended('telemetry', { limit: 100 });
      expect(after.total).toBe(10);
      expect(after.items.map((r) => r.n)).toEqual([301, 300, 299, 298, 297, 296, 295, 294, 293, 292]);
    });

    it('does not wait for the rows another open transaction is trimming, and still keeps exactly `keep` once it commits', async () => {
      const store = await open('trim-skips-locked');
      for (let i = 0; i < 10; i++) await store.append('telemetry', { n: i }, 10);
      // An admission's transaction: its append trims the oldest row and holds that until it commits.
      const held = await store.pool().connect();
      try {
        await held.query('BEGIN');
        await appendRecord(held, 'telemetry', { n: 'held' }, 10);
        // Another append's cut covers the same row. It must not queue behind the open transaction.
        const appended = store.append('telemetry', { n: 'free' }, 10).then(() => 'appended');
        const outcome = await Promise.race([appended, new Promise((resolve) => setTimeout(() => resolve('waiting'), 3000))]);
        expect(outcome).toBe('appended');
        await held.query('COMMIT');
      } finally {
        held.release();
      }
      await store.append('telemetry', { n: 'last' }, 10);
      const { items, total } = await store.listAppended('telemetry', { limit: 100 });
      expect(total).toBe(10);
      expect(items[0]).toEqual({ n: 'last' });
    });

    it('commits an admission and its telemetry together: a failing append leaves no run, and instances admitting one key at once append once', async () => {
      const a = await open('run-and-append');
      const b = await open('run-and-append');
      const telemetryOf = (result: { before: unknown; after: unknown }) =>
        result.before === null && result.after !== null ? [{ collection: 'telemetry' as const, record: { event: 'accepted' }, keep: 100 }] : [];

      // An append that fails (an unknown collection) rolls the run back with it.
      const failing = () => [{ collection: 'no-such-collection' as never, record: {}, keep: 100 }];
      await expect(a.mutateRunAndAppend('rolled-back', insertIfAbsent(makeRun({ runId: 'rolled-back' })), failing)).rejects.toThrow(/unknown append collection/);
      expect(await a.getRun('rolled-back')).toBeNull();

      // Twelve admissions of one key from two instances: one run, one telemetry record.
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => (i % 2 ? a : b).mutateRunAndAppend('one-key', insertIfAbsent(makeRun({ runId: 'one-key' })), telemetryOf)),
      );
      expect(results.filter((r) => r.changed)).toHaveLength(1);
      expect((await a.listAppended('telemetry', { limit: 100 })).total).toBe(1);
    });

    it('never shows a credential in its target or health', async () => {
      const store = new PostgresStateStore('postgres://user:secret-password@127.0.0.1:5432/test?schema=abc');
      expect(store.target).toBe('postgres:127.0.0.1:5432/test?schema=abc');
      expect(JSON.stringify(await store.health())).not.toContain('secret-password');
    });
  });
});
