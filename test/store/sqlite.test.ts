import { undoLayout7 } from '../support/sqlite-layouts.js';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import { walFileSync } from '../../src/store/sqlite/wal-sync.js';
import { AFTER_GROUP_SELECT, DUE_SELECT } from '../../src/store/sqlite/runs.js';
import { tempDir } from '../support/config.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import { describeStoreConformance } from './conformance.js';
import { runAndKill } from '../support/store-crash.js';
import { insertIfAbsent, makeRun, markRunning } from '../support/runs.js';

const DB = join('data', 'orchestrator.sqlite');

describeStoreConformance('SqliteStateStore', (dir) => new SqliteStateStore(join(dir, DB)));

/** Takes a database back to layout 4: the index of run creation times is there. */
function undoLayout5(db: Database.Database): void {
  db.exec('CREATE INDEX runs_created ON runs (internal, created_at); DELETE FROM schema_migrations WHERE version = 5');
}

/** Takes a database back to layout 5: no write stamps of run events. */
function undoLayout6(db: Database.Database): void {
  db.exec("DROP INDEX runs_last_tx; ALTER TABLE runs DROP COLUMN last_tx; DELETE FROM counters WHERE name = 'event_tx'; DELETE FROM schema_migrations WHERE version = 6");
}

/** Takes a database back to layout 3: no row counts of the append tables. */
function undoLayout4(db: Database.Database): void {
  for (const table of ['telemetry', 'milestones']) db.exec(`DROP TRIGGER ${table}_rows_added; DROP TRIGGER ${table}_rows_removed`);
  db.exec("DELETE FROM counters WHERE name LIKE 'rows:%'; DELETE FROM schema_migrations WHERE version = 4");
}

describe('SqliteStateStore on disk', () => {
  const open: SqliteStateStore[] = [];

  async function openStore(dir: string): Promise<SqliteStateStore> {
    const store = new SqliteStateStore(join(dir, DB));
    await store.open();
    open.push(store);
    return store;
  }

  /** A second, plain connection for looking at the tables the store wrote. */
  function inspect<T>(dir: string, look: (db: Database.Database) => T): T {
    const db = new Database(join(dir, DB), { readonly: true });
    try {
      return look(db);
    } finally {
      db.close();
    }
  }

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('opens its connection with the savepoint journals in memory (temp_store MEMORY), WAL and synchronous NORMAL', () => {
    // Without temp_store MEMORY, each batch's savepoint journal spilled to a temp file past
    // 64 KiB: about 40 pwrite calls per admission (docs/performance.md).
    const db = openDatabase(join(tempDir(), 'settings.sqlite'));
    try {
      expect(db.pragma('temp_store', { simple: true })).toBe(2);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.pragma('synchronous', { simple: true })).toBe(1);
    } finally {
      db.close();
    }
  });

  it('creates the layout (version 2, the run-count index of version 3, the counted append tables of 4, one index less in 5, event stamps in 6, fair-claim columns in 7, start times indexed in 8, flow step statuses and flow ids in 9, group heads and not-before times in 10) in WAL mode', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    expect(store.target).toBe(`sql:${join(dir, DB)}`);
    inspect(dir, (db) => {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      expect(db.prepare('SELECT version, description FROM schema_migrations').all()).toEqual([
        { version: 2, description: 'normalized second-generation layout' },
        { version: 3, description: 'covering index of run counts' },
        { version: 4, description: 'row counts of the append tables' },
        { version: 5, description: 'no index of run creation times' },
        { version: 6, description: 'write stamps of run events' },
        { version: 7, description: 'concurrency key, priority and start time of runs as columns, for claims in fair order' },
        { version: 8, description: 'runs indexed by start time (rate buckets count recent starts)' },
        { version: 9, description: 'flow steps stored waiting and skipped, runs indexed by flow id and status' },
        { version: 10, description: 'ready runs indexed by (key, priority, type) group heads and by not-before time, for claims that read a bounded set' },
      ]);
      // Every index of the runs table is one more B-tree each run write updates: only these.
      const runIndexes = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'runs' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all();
      expect(runIndexes).toEqual([
        'runs_claim',
        'runs_counts',
        'runs_counts_all',
        'runs_flow',
        'runs_key_started',
        'runs_last_tx',
        'runs_listing',
        'runs_ready_heads',
        'runs_ready_not_before',
        'runs_started',
        'runs_status',
        'runs_type',
      ]);
      // The per-type counts of the aggregates are answered from the index alone.
      const plan = db.prepare("EXPLAIN QUERY PLAN SELECT type, status, queue_state, COUNT(*) FROM runs WHERE internal = 0 GROUP BY type, status, queue_state").all() as Array<{ detail: string }>;
      expect(plan.map((p) => p.detail).join(' ')).toMatch(/COVERING INDEX runs_counts\b/);
      const planAll = db.prepare('EXPLAIN QUERY PLAN SELECT type, status, queue_state, COUNT(*) FROM runs GROUP BY type, status, queue_state').all() as Array<{ detail: string }>;
      expect(planAll.map((p) => p.detail).join(' ')).toMatch(/COVERING INDEX runs_counts_all/);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual([
        'community_responses',
        'counters',
        'deployed_agents',
        'docs_indexed',
        'documents',
        'milestones',
        'rss_drafts',
        'runs',
        'schema_migrations',
        'state_sections',
        'task_history',
        'telemetry',
      ]);
      const claimPlan = db
        .prepare("EXPLAIN QUERY PLAN SELECT doc FROM runs WHERE queue_state = 'ready' ORDER BY seq LIMIT 1")
        .all() as Array<{ detail: string }>;
      expect(claimPlan.map((row) => row.detail).join(' ')).toContain('runs_claim');
      // A claim's candidates: a range of the group heads from past the last group read, the seek on all four
      // columns of the index (on three, SQLite stepped through every ready run of that group).
      const headsPlan = db.prepare(`EXPLAIN QUERY PLAN ${AFTER_GROUP_SELECT}`).all('k', 3, 't', Number.MAX_SAFE_INTEGER, 9) as Array<{ detail: string }>;
      expect(headsPlan.map((row) => row.detail).join(' ')).toMatch(/SEARCH runs USING INDEX runs_ready_heads \(\(concurrency_key,priority,type,seq\)>/);
      // The due runs with a not-before time: a range of their own index, never every ready run (the database has no statistics).
      const duePlan = db.prepare(`EXPLAIN QUERY PLAN ${DUE_SELECT}`).all('2026-01-01T00:00:00.000Z', '[]', 9) as Array<{ detail: string }>;
      expect(duePlan.map((row) => row.detail).join(' ')).toMatch(/SEARCH runs USING INDEX runs_ready_not_before \(not_before/);
    });
    const health = await store.health();
    expect(health.detail).toMatch(/^SQLite 3\.\d+\.\d+, WAL, layout version 10$/);
  });

  it('maps runs and the OrchestratorState onto typed columns', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await store.mutateRun('r1', insertIfAbsent(makeRun({ runId: 'r1', type: 'rss-sweep', internal: true })));
    await store.mutateState((s) => ({
      ...s,
      tasksProcessed: 3,
      taskHistory: [{ type: 'heartbeat', status: 'error', timestamp: 't1', durationMs: 12, error: 'offline' }],
      docsIndexed: ['docs/a.md', 'docs/b.md'],
      deployedAgents: [{ timestamp: 't2', agentName: 'doc-specialist', deployPath: '/deploy/x', metadata: { tags: ['a'] } }],
    }));
    await store.append('telemetry', { event: 'accepted', timestamp: 't3', runId: 'r1' }, 10);
    inspect(dir, (db) => {
      expect(db.prepare('SELECT run_id, seq, type, status, queue_state, internal FROM runs').all()).toEqual([
        { run_id: 'r1', seq: 1, type: 'rss-sweep', status: 'pending', queue_state: 'ready', internal: 1 },
      ]);
      // Only sections that changed are written; the rest read back as their defaults.
      expect(db.prepare('SELECT key, value FROM state_sections ORDER BY key').all()).toEqual([
        { key: 'tasksProcessed', value: '3' },
      ]);
      expect(db.prepare('SELECT type, status, timestamp, duration_ms, error FROM task_history').all()).toEqual([
        { type: 'heartbeat', status: 'error', timestamp: 't1', duration_ms: 12, error: 'offline' },
      ]);
      expect(db.prepare('SELECT path FROM docs_indexed ORDER BY id').pluck().all()).toEqual(['docs/a.md', 'docs/b.md']);
      expect(db.prepare('SELECT agent_name, deploy_path FROM deployed_agents').all()).toEqual([
        { agent_name: 'doc-specialist', deploy_path: '/deploy/x' },
      ]);
      expect(db.prepare('SELECT kind, timestamp FROM telemetry').all()).toEqual([{ kind: 'accepted', timestamp: 't3' }]);
    });
    expect((await store.getState()).deployedAgents[0]?.metadata).toEqual({ tags: ['a'] });
  });

  it('builds a batch on the event loop: each write sees the runs staged before it, claims and type limits included', async () => {
    const store = await openStore(tempDir());
    // Issued in one tick: one batch, one COMMIT on the writer thread.
    const claim = () => store.claimNextRun({ typeLimits: { lane: 1 } }, (r) => markRunning(r));
    const [, , , first, second, third, requeued] = await Promise.all([
      store.mutateRun('a', insertIfAbsent(makeRun({ runId: 'a', taskId: 'a', type: 'lane' }))),
      store.mutateRun('b', insertIfAbsent(makeRun({ runId: 'b', taskId: 'b', type: 'lane' }))),
      store.mutateRun('c', insertIfAbsent(makeRun({ runId: 'c', taskId: 'c', type: 'other' }))),
      claim(),
      claim(),
      claim(),
      store.mutateRun('a', (current) => (current?.status === 'running' ? { ...current, status: 'retrying', queueState: 'held' } : null)),
    ]);
    expect([first?.runId, second?.runId, third]).toEqual(['a', 'c', null]);
    expect(requeued.changed).toBe(true);
    expect((await store.listRuns({ order: 'oldest' })).items.map((r) => [r.runId, r.seq, r.status, r.queueState])).toEqual([
      ['a', 1, 'retrying', 'held'],
      ['b', 2, 'pending', 'ready'],
      ['c', 3, 'running', null],
    ]);
    // The counter was committed with the batch: the next admission takes the next number.
    expect((await store.mutateRun('d', insertIfAbsent(makeRun({ runId: 'd', taskId: 'd' })))).after?.seq).toBe(4);
  });

  it('commits a prune in a batch of its own between the writes issued around it, one batch at a time', async () => {
    const store = await openStore(tempDir());
    const insert = (id: string) => store.mutateRun(id, insertIfAbsent(makeRun({ runId: id, taskId: id })));
    // Enough writes before the prune that their COMMIT outlasts the flush interval: the batch
    // after the prune must still wait for it (a second batch alongside reused its run numbers).
    const before = Array.from({ length: 400 }, (_, i) => insert(`before-${i}`));
    const prune = store.pruneRuns(1000);
    const after = Array.from({ length: 20 }, (_, i) => insert(`after-${i}`));
    const settled = await Promise.allSettled([...before, prune, ...after]);
    expect(settled.filter((r) => r.status === 'rejected')).toEqual([]);
    const seqs = (await store.listRuns({ limit: 1000 })).items.map((r) => r.seq).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 420 }, (_, i) => i + 1));
  });

  it('rolls back only the failing write of a batch', async () => {
    const store = await openStore(tempDir());
    const results = await Promise.allSettled([
      store.mutateRun('a', insertIfAbsent(makeRun({ runId: 'a' }))),
      store.mutateRun('b', () => {
        throw new Error('mutator failed');
      }),
      store.mutateRun('c', insertIfAbsent(makeRun({ runId: 'c' }))),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await store.listRuns({})).items.map((r) => r.runId)).toEqual(['c', 'a']);
  });

  it('acknowledges a write after an fdatasync of the WAL, on a descriptor that stays on the WAL inode', async () => {
    const dir = tempDir();
    const path = join(dir, DB);
    const synced: number[] = [];
    const store = new SqliteStateStore(path, {
      walSync: (databasePath) => {
        const real = walFileSync(databasePath);
        const datasync = async () => {
          await real.datasync();
          synced.push(statSync(`${path}-wal`).ino);
        };
        return { datasync, close: () => real.close() };
      },
    });
    await store.open();
    open.push(store);
    await store.mutateRun('a', insertIfAbsent(makeRun({ runId: 'a' })));
    expect(synced).toHaveLength(1);
    // Another connection opening and closing (a reader, the migrate tool) leaves the WAL in place:
    // SQLite removes it only when the last connection closes.
    inspect(dir, (db) => expect(db.prepare('SELECT COUNT(*) FROM runs').pluck().get()).toBe(1));
    await store.mutateRun('b', insertIfAbsent(makeRun({ runId: 'b' })));
    expect(synced).toHaveLength(2);
    expect(synced[1]).toBe(synced[0]);
  });

  it('after a failed WAL sync rejects the write, refuses later ones and reports down', async () => {
    const dir = tempDir();
    const store = new SqliteStateStore(join(dir, DB), {
      walSync: () => ({
        datasync: () => Promise.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })),
        close: async () => undefined,
      }),
    });
    await store.open();
    open.push(store);
    await expect(store.mutateRun('a', insertIfAbsent(makeRun({ runId: 'a' })))).rejects.toThrow(
      /state database .* could not be synced \(EIO: i\/o error, fdatasync\); writes are refused until restart/,
    );
    await expect(store.putDoc('c', 'x', { n: 1 })).rejects.toThrow(/writes are refused until restart/);
    const health = await store.health();
    expect(health.status).toBe('down');
    expect(health.detail).toMatch(/could not be synced/);
  });

  it('checkpoints the WAL from a worker thread', async () => {
    const dir = tempDir('sqlite-checkpoint-');
    const store = await openStore(dir);
    for (let i = 0; i < 20; i++) {
      await Promise.all(Array.from({ length: 25 }, (_, n) => store.mutateRun(`cp-${i}-${n}`, insertIfAbsent(makeRun({ runId: `cp-${i}-${n}` })))));
    }
    const deadline = Date.now() + 15_000;
    while ((store.checkpointStats()?.pagesCheckpointed ?? 0) === 0) {
      if (Date.now() > deadline) throw new Error(`no checkpoint by the worker: ${JSON.stringify(store.checkpointStats())}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(store.checkpointStats()).toMatchObject({ lastError: null });
    // The database file itself now holds the runs (a reader that ignores the WAL would see them).
    const stats = store.checkpointStats()!;
    expect(stats.completed).toBeGreaterThan(0);
    await store.close();
    open.splice(open.indexOf(store), 1);
    const reopened = await openStore(dir);
    expect((await reopened.listRuns({ limit: 1 })).total).toBe(500);
  });

  it('refuses a file that is not a SQLite database as state_corrupt, changing nothing', async () => {
    const dir = tempDir();
    mkdirSync(join(dir, 'data'));
    const path = join(dir, DB);
    const bytes = Buffer.from('{"this is": "a JSON state file, not a database"}\n'.repeat(200));
    writeFileSync(path, bytes);
    const error = await new SqliteStateStore(path).open().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'state_corrupt' });
    expect((error as Error).message).toContain(`state database ${path} cannot be read`);
    expect(readFileSync(path)).toEqual(bytes);
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('reports a page damaged after opening as state_corrupt naming the file, when a query reads it', async () => {
    const dir = tempDir();
    const path = join(dir, DB);
    const seeded = await openStore(dir);
    for (let i = 0; i < 40; i++) await seeded.mutateRun(`r${i}`, insertIfAbsent(makeRun({ runId: `r${i}`, payload: { text: 'x'.repeat(3000) } })));
    await open.pop()!.close();
    const leaves = inspect(dir, (db) => db.prepare(`SELECT pageno FROM dbstat WHERE name = 'runs' AND pagetype = 'leaf'`).pluck().all() as number[]);
    expect(leaves.length).toBeGreaterThan(2);
    const store = await openStore(dir);
    const pageSize = 4096;
    const bytes = readFileSync(path);
    const victim = leaves[Math.floor(leaves.length / 2)]!;
    bytes.fill(0x5a, (victim - 1) * pageSize + 8, victim * pageSize);
    writeFileSync(path, bytes);
    const error = await store.listRuns({ limit: 1000 }).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'state_corrupt' });
    expect((error as Error).message).toContain(`state database ${path} cannot be read`);
    expect(readFileSync(path)).toEqual(bytes);
  });

  it('refuses a database written with a newer layout', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    const db = new Database(join(dir, DB));
    db.prepare("INSERT INTO schema_migrations VALUES (11, 'from the future', 'now')").run();
    db.close();
    await expect(new SqliteStateStore(join(dir, DB)).open()).rejects.toThrow(/layout version 11; this build reads version 10/);
  });

  /** Stores one run, takes the database back with `undo`, and reopens it: the run must be there. */
  async function upgradedFrom(dir: string, undo: (db: Database.Database) => void): Promise<SqliteStateStore> {
    const first = await openStore(dir);
    await first.mutateRun('kept', () => makeRun({ runId: 'kept' }));
    await first.close();
    const db = new Database(join(dir, DB));
    undo(db);
    db.close();
    const reopened = await openStore(dir);
    expect((await reopened.getRun('kept'))?.runId).toBe('kept');
    return reopened;
  }

  it('upgrades a version 2 database in place, keeping its runs', async () => {
    const dir = tempDir();
    const reopened = await upgradedFrom(dir, (db) => {
      undoLayout7(db);
      undoLayout6(db);
      undoLayout5(db);
      db.exec("DROP INDEX runs_counts; DROP INDEX runs_counts_all; DELETE FROM schema_migrations WHERE version = 3");
      undoLayout4(db);
    });
    await reopened.close();
    inspect(dir, (d) => {
      expect(d.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(d.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'runs_counts'").pluck().all()).toEqual(['runs_counts']);
    });
  });

  it('upgrades a version 3 database to counted append tables: the count starts from the rows there, and the trim keeps the newest', async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    for (let i = 0; i < 7; i += 1) await first.append('telemetry', { n: i }, 100);
    await first.close();
    const db = new Database(join(dir, DB));
    undoLayout7(db);
    undoLayout6(db);
    undoLayout5(db);
    undoLayout4(db);
    db.close();
    const reopened = await openStore(dir);
    expect((await reopened.listAppended('telemetry', { limit: 100 })).total).toBe(7);
    await reopened.append('telemetry', { n: 7 }, 5);
    const kept = await reopened.listAppended('telemetry', { limit: 100 });
    expect(kept.total).toBe(5);
    expect(kept.items.map((item) => item.n)).toEqual([7, 6, 5, 4, 3]);
    expect((await reopened.health()).collections.telemetry).toBe(5);
    await reopened.close();
    const direct = new Database(join(dir, DB));
    try {
      const d = direct;
      // Rows written behind the store's back are counted too.
      d.prepare("INSERT INTO telemetry (kind, timestamp, record) VALUES ('x', 'now', '{}')").run();
      d.prepare('DELETE FROM telemetry WHERE id = (SELECT MIN(id) FROM telemetry)').run();
      d.prepare('DELETE FROM telemetry WHERE id = (SELECT MIN(id) FROM telemetry)').run();
      expect(d.prepare("SELECT value FROM counters WHERE name = 'rows:telemetry'").pluck().get()).toBe(
        d.prepare('SELECT COUNT(*) FROM telemetry').pluck().get(),
      );
    } finally {
      direct.close();
    }
  });

  it('upgrades a version 4 database by dropping the index of run creation times, keeping its runs', async () => {
    const dir = tempDir();
    const reopened = await upgradedFrom(dir, (db) => {
      undoLayout7(db);
      undoLayout6(db);
      undoLayout5(db);
    });
    await reopened.mutateRun('added', () => makeRun({ runId: 'added' }));
    expect((await reopened.listRuns({ limit: 10 })).total).toBe(2);
    await reopened.close();
    inspect(dir, (d) => {
      expect(d.prepare('SELECT version FROM schema_migrations ORDER BY version').pluck().all()).toEqual([2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(d.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'runs_created'").pluck().all()).toEqual([]);
    });
  });

  it('refuses a database whose lock is held by a live process', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    writeFileSync(join(dir, `${DB}.lock`), `${process.ppid}\n`);
    await expect(new SqliteStateStore(join(dir, DB)).open()).rejects.toThrow(`is in use by pid ${process.ppid}`);
  });

  it('keeps every acknowledged write across repeated SIGKILLs', async () => {
    const dir = tempDir();
    const target = `sql:${join(dir, DB)}`;
    const acknowledged: string[] = [];
    let stateAcknowledged = 0;
    for (const [round, killAfter] of [100, 300].entries()) {
      const outcome = await runAndKill(target, `round${round}`, killAfter);
      acknowledged.push(...outcome.acknowledgedRuns);
      stateAcknowledged = Math.max(stateAcknowledged, outcome.acknowledgedState);
    }
    const store = await openStore(dir);
    const missing = [];
    for (const runId of acknowledged) if ((await store.getRun(runId)) === null) missing.push(runId);
    expect(missing).toEqual([]);
    expect((await store.getState()).tasksProcessed).toBeGreaterThanOrEqual(stateAcknowledged);
  }, 60_000);
});
