import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { emptyOrchestratorState } from '../../src/domain/orchestrator-state.js';
import { TransactionBatcher } from '../../src/store/sqlite/batcher.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import type { WalSyncPort } from '../../src/store/sqlite/wal-sync.js';
import type { WriteContext } from '../../src/store/sqlite/write-context.js';
import { SqliteWriter } from '../../src/store/sqlite/writer-thread.js';
import { tempDir } from '../support/config.js';

/** A WAL syncer whose every fdatasync stays in flight until the test finishes or fails it. */
class HeldSync implements WalSyncPort {
  readonly calls: Array<{ resolve: () => void; reject: (err: Error) => void }> = [];
  closed = false;

  datasync(): Promise<void> {
    return new Promise((resolve, reject) => this.calls.push({ resolve, reject }));
  }

  async close(): Promise<void> {
    this.closed = true;
  }
}

/** Records how a promise settled, without awaiting it. */
function watch<T>(promise: Promise<T>): { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } {
  const seen: { state: 'pending' | 'resolved' | 'rejected'; error?: unknown } = { state: 'pending' };
  promise.then(
    () => (seen.state = 'resolved'),
    (error: unknown) => Object.assign(seen, { state: 'rejected', error }),
  );
  return seen;
}

/** Lets the event loop turn until `done` holds (the batcher flushes on setImmediate, the writer thread answers a moment later). */
async function until(done: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5000;
  while (Date.now() < deadline) {
    if (done()) return;
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  throw new Error(`never happened: ${what}`);
}

/** A few turns of the event loop, enough for any flush or settlement that was going to happen. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/** A database with the given tables, its store connection and a writer thread on it. */
async function openWithWriter(name: string, tables: string): Promise<{ path: string; db: Database.Database; writer: SqliteWriter }> {
  const path = join(tempDir(), name);
  const db = openDatabase(path);
  db.exec(tables);
  return { path, db, writer: await SqliteWriter.start(path, 5000) };
}

describe('TransactionBatcher with a WAL sync after COMMIT', () => {
  const opened: Array<{ db: Database.Database; writer: SqliteWriter }> = [];

  /** The store's two connections: its own (reads) and the writer thread's (each batch's statements). */
  async function setup(): Promise<{ db: Database.Database; sync: HeldSync; batcher: TransactionBatcher }> {
    const { path, db, writer } = await openWithWriter('wal-sync.sqlite', 'CREATE TABLE t (id TEXT PRIMARY KEY)');
    opened.push({ db, writer });
    const sync = new HeldSync();
    return { db, sync, batcher: new TransactionBatcher(writer, { db, seq: 0, state: emptyOrchestratorState() }, 0, sync, path) };
  }

  const insert = (id: string) => (ctx: WriteContext) => {
    ctx.run('INSERT INTO t (id) VALUES (?)', [id]);
    return id;
  };
  const committed = (db: Database.Database, id: string) => db.prepare('SELECT 1 FROM t WHERE id = ?').get(id) !== undefined;

  afterEach(async () => {
    for (const { db, writer } of opened.splice(0)) {
      await writer.close();
      db.close();
    }
  });

  it('settles a write only once an fdatasync started after its COMMIT has returned', async () => {
    const { db, sync, batcher } = await setup();
    const write = batcher.run(insert('a'));
    const seen = watch(write);
    await until(() => sync.calls.length === 1, 'the sync after the first COMMIT');
    // Committed (readable) but not acknowledged: the sync has not returned.
    expect(committed(db, 'a')).toBe(true);
    await turns();
    expect(seen.state).toBe('pending');
    sync.calls[0]!.resolve();
    await expect(write).resolves.toBe('a');
  });

  it('commits the next batch while a sync runs, and acknowledges it only with the next sync', async () => {
    const { db, sync, batcher } = await setup();
    const order: string[] = [];
    const first = batcher.run(insert('a')).then((id) => order.push(id));
    await until(() => sync.calls.length === 1, 'the first sync');
    const second = batcher.run(insert('b')).then((id) => order.push(id));
    const third = batcher.run(insert('c')).then((id) => order.push(id));
    await until(() => committed(db, 'c'), 'the second batch committed while the first sync runs');
    await turns();
    // One sync in flight at a time; the commits that landed meanwhile wait for the next one.
    expect(sync.calls).toHaveLength(1);
    sync.calls[0]!.resolve();
    await first;
    await until(() => sync.calls.length === 2, 'the second sync');
    await turns();
    expect(order).toEqual(['a']);
    sync.calls[1]!.resolve();
    await Promise.all([second, third]);
    expect(order).toEqual(['a', 'b', 'c']);
  });

  it('answers a write that changed nothing after the sync covering earlier commits, with no sync of its own', async () => {
    const { db, sync, batcher } = await setup();
    const write = watch(batcher.run(insert('a')));
    await until(() => sync.calls.length === 1, 'the sync of the insert');
    // Reads the row the insert committed a moment ago: its answer rests on that commit.
    const reader = batcher.run((ctx) => ctx.db.prepare('SELECT id FROM t').pluck().all());
    const read = watch(reader);
    await turns();
    expect(read.state).toBe('pending');
    expect(sync.calls).toHaveLength(1);
    sync.calls[0]!.resolve();
    await expect(reader).resolves.toEqual(['a']);
    expect(write.state).toBe('resolved');
    // Nothing committed since the last sync: a no-change write needs none.
    await expect(batcher.run((ctx) => ctx.db.prepare('SELECT COUNT(*) FROM t').pluck().get())).resolves.toBe(1);
    expect(sync.calls).toHaveLength(1);
    expect(committed(db, 'a')).toBe(true);
  });

  it('rejects every write a failed sync covered and those waiting for the next, then refuses writes', async () => {
    const { db, sync, batcher } = await setup();
    const first = batcher.run(insert('a'));
    const firstSeen = watch(first);
    await until(() => sync.calls.length === 1, 'the first sync');
    const second = batcher.run(insert('b'));
    const secondSeen = watch(second);
    await until(() => committed(db, 'b'), 'the second batch committed');
    sync.calls[0]!.reject(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' }));
    await expect(first).rejects.toThrow(/could not be synced \(EIO: i\/o error, fdatasync\); writes are refused until restart/);
    await expect(second).rejects.toThrow(/could not be synced/);
    expect([firstSeen.state, secondSeen.state]).toEqual(['rejected', 'rejected']);
    expect(batcher.broken?.message).toMatch(/could not be synced/);
    await expect(batcher.run(insert('c'))).rejects.toThrow(/writes are refused until restart/);
    await turns();
    expect(committed(db, 'c')).toBe(false);
    expect(sync.calls).toHaveLength(1);
  });

  it('close waits for the sync in flight, then releases the WAL descriptor', async () => {
    const { sync, batcher } = await setup();
    const write = watch(batcher.run(insert('a')));
    await until(() => sync.calls.length === 1, 'the sync');
    let closed = false;
    const closing = batcher.close().then(() => (closed = true));
    await turns();
    expect([closed, sync.closed, write.state]).toEqual([false, false, 'pending']);
    sync.calls[0]!.resolve();
    await closing;
    expect([sync.closed, write.state]).toEqual([true, 'resolved']);
  });
});

describe('TransactionBatcher when the writer thread cannot commit a batch', () => {
  it('fails every write of that batch and starts the next one from what is committed', async () => {
    const { path, db, writer: real } = await openWithWriter(
      'writer-failure.sqlite',
      "CREATE TABLE t (id TEXT PRIMARY KEY); CREATE TABLE counters (name TEXT PRIMARY KEY, value INTEGER); INSERT INTO counters VALUES ('run_seq', 0)",
    );
    let failNext = true;
    const writer = {
      commit: (ops: Parameters<SqliteWriter['commit']>[0]) => {
        if (!failNext) return real.commit(ops);
        failNext = false;
        return Promise.reject(Object.assign(new Error('disk I/O error'), { code: 'SQLITE_IOERR' }));
      },
    };
    const state = emptyOrchestratorState();
    const committedView = { db, seq: 0, state };
    const sync: WalSyncPort = { datasync: async () => undefined, close: async () => undefined };
    const batcher = new TransactionBatcher(writer, committedView, 0, sync, path);
    try {
      const numbered = (id: string) => (ctx: WriteContext) => {
        const seq = ctx.nextSeq();
        ctx.state = { ...ctx.state, notes: `wrote ${id}` };
        ctx.run('INSERT INTO t (id) VALUES (?)', [`${id}-${seq}`]);
        return seq;
      };
      const lost = await Promise.allSettled([batcher.run(numbered('a')), batcher.run(numbered('b'))]);
      expect(lost.map((r) => r.status)).toEqual(['rejected', 'rejected']);
      expect(committedView).toMatchObject({ seq: 0, state });
      // The next batch numbers from the committed counter, not from the lost batch's.
      await expect(batcher.run(numbered('c'))).resolves.toBe(1);
      expect(db.prepare('SELECT id FROM t').pluck().all()).toEqual(['c-1']);
      expect(db.prepare("SELECT value FROM counters WHERE name = 'run_seq'").pluck().get()).toBe(1);
      expect(committedView.state.notes).toBe('wrote c');
    } finally {
      await batcher.close();
      await real.close();
      db.close();
    }
  });
});

describe('SqliteWriter when its thread is gone', () => {
  it('rejects the batch in flight and every later one, and says why', async () => {
    const { db, writer } = await openWithWriter('writer-gone.sqlite', 'CREATE TABLE t (id TEXT PRIMARY KEY)');
    try {
      await expect(writer.commit([['INSERT INTO t (id) VALUES (?)', ['a']]])).resolves.toMatchObject({ wroteRows: true });
      expect(writer.failure).toBeNull();
      // The thread ends (killed, out of memory) with a batch in flight: that batch settles either
      // way (committed just before the end, or rejected), never hangs.
      const inFlight = writer.commit([['INSERT INTO t (id) VALUES (?)', ['b']]]);
      await (writer as unknown as { worker: { terminate(): Promise<number> } }).worker.terminate();
      const [outcome] = await Promise.allSettled([inFlight]);
      if (outcome!.status === 'rejected') expect(String(outcome!.reason)).toMatch(/SQLite writer thread stopped/);
      await expect(writer.commit([['INSERT INTO t (id) VALUES (?)', ['c']]])).rejects.toThrow(/SQLite writer thread stopped/);
      expect(writer.failure?.message).toMatch(/SQLite writer thread stopped/);
      expect(db.prepare('SELECT id FROM t ORDER BY id').pluck().all()).not.toContain('c');
    } finally {
      await writer.close();
      db.close();
    }
  });
});
