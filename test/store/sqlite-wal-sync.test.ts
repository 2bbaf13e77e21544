import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { TransactionBatcher } from '../../src/store/sqlite/batcher.js';
import { openDatabase } from '../../src/store/sqlite/connection.js';
import type { WalSyncPort } from '../../src/store/sqlite/wal-sync.js';
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

/** Lets the event loop turn until `done` holds (the batcher flushes on setImmediate). */
async function until(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (done()) return;
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error(`never happened: ${what}`);
}

/** A few turns of the event loop, enough for any flush or settlement that was going to happen. */
async function turns(n = 20): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe('TransactionBatcher with a WAL sync after COMMIT', () => {
  const dbs: Database.Database[] = [];

  function setup(): { db: Database.Database; sync: HeldSync; batcher: TransactionBatcher } {
    const db = openDatabase(join(tempDir(), 'wal-sync.sqlite'));
    db.exec('CREATE TABLE t (id TEXT PRIMARY KEY)');
    dbs.push(db);
    const sync = new HeldSync();
    return { db, sync, batcher: new TransactionBatcher(db, 0, sync) };
  }

  const insert = (id: string) => (db: Database.Database) => {
    db.prepare('INSERT INTO t (id) VALUES (?)').run(id);
    return id;
  };
  const committed = (db: Database.Database, id: string) =>
    !db.inTransaction && db.prepare('SELECT 1 FROM t WHERE id = ?').get(id) !== undefined;

  afterEach(() => {
    for (const db of dbs.splice(0)) db.close();
  });

  it('settles a write only once an fdatasync started after its COMMIT has returned', async () => {
    const { db, sync, batcher } = setup();
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
    const { db, sync, batcher } = setup();
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
    const { db, sync, batcher } = setup();
    const write = watch(batcher.run(insert('a')));
    await until(() => sync.calls.length === 1, 'the sync of the insert');
    // Reads the row the insert committed a moment ago: its answer rests on that commit.
    const reader = batcher.run((d) => d.prepare('SELECT id FROM t').pluck().all());
    const read = watch(reader);
    await turns();
    expect(read.state).toBe('pending');
    expect(sync.calls).toHaveLength(1);
    sync.calls[0]!.resolve();
    await expect(reader).resolves.toEqual(['a']);
    expect(write.state).toBe('resolved');
    // Nothing committed since the last sync: a no-change write needs none.
    await expect(batcher.run((d) => d.prepare('SELECT COUNT(*) FROM t').pluck().get())).resolves.toBe(1);
    expect(sync.calls).toHaveLength(1);
    expect(committed(db, 'a')).toBe(true);
  });

  it('rejects every write a failed sync covered and those waiting for the next, then refuses writes', async () => {
    const { db, sync, batcher } = setup();
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
    const { sync, batcher } = setup();
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
