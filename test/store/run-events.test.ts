import { undoLayout7 } from '../support/sqlite-layouts.js';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { compareCursors, type EventCursor } from '../../src/domain/run-event-cursor.js';
import type { RunRecord, RunStatus } from '../../src/domain/run-record.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { PostgresStateStore } from '../../src/store/postgres/postgres-state-store.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import { stampedIn, TX_ID, updateRun } from '../../src/store/postgres/save-run.js';
import type { StateStore, StoredRunEvent } from '../../src/store/types.js';
import { withEvent } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { makeRun, markRunning } from '../support/runs.js';

const AT = new Date('2026-01-01T00:00:00Z');

/** A new run carrying one `admitted` event, as admission writes it. */
function admitted(runId: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return withEvent(makeRun({ runId, taskId: `task-${runId}`, ...overrides }), AT, { kind: 'queue', name: 'admitted' });
}

/** Mutator: appends one event named `name` and moves the run to `status` (unchanged when absent). */
const step = (name: string, status?: RunStatus) => (current: RunRecord | null) =>
  withEvent({ ...current!, ...(status ? { status, queueState: null } : {}) }, AT, { kind: 'execution', name });

/**
 * One page once nothing committed is held back (on PostgreSQL another transaction of the
 * cluster, even another test's, may hold the horizon for a moment).
 */
async function settledPage(store: StateStore, after: EventCursor | null, limit: number, filter = {}): Promise<StoredRunEvent[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const page = await store.readRunEvents(after, limit, filter);
    if (!page.heldBack || page.events.length === limit || Date.now() > deadline) return page.events;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Reads the whole feed past `after` page by page (small pages, so paging itself is exercised). */
async function readAll(store: StateStore, after: EventCursor | null, filter = {}, pageSize = 2): Promise<StoredRunEvent[]> {
  const all: StoredRunEvent[] = [];
  let cursor = after;
  for (;;) {
    const events = await settledPage(store, cursor, pageSize, filter);
    all.push(...events);
    if (events.length < pageSize) return all;
    cursor = events[events.length - 1]!.cursor;
  }
}

const names = (events: StoredRunEvent[]) => events.map((e) => `${e.runId}:${e.event.name}`);

/**
 * The change feed every driver must give (docs/events.md): stamps assigned by the store in commit
 * order, pages in cursor order with no gap and no repeat, filters, the head, the write listener,
 * and cursors that keep their order across a restart.
 */
function describeRunEventFeed(name: string, makeStore: (dir: string) => StateStore, options: { exclusive: boolean }): void {
  describe(`${name}: run event feed`, () => {
    const open: StateStore[] = [];
    async function openStore(dir = tempDir('run-events-')): Promise<{ store: StateStore; dir: string }> {
      const store = makeStore(dir);
      await store.open();
      open.push(store);
      return { store, dir };
    }
    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    it('stamps each appended event with the write order and the status the write left, ignoring stamps the caller set', async () => {
      const { store } = await openStore();
      const first = await store.mutateRun('a', () => {
        const run = admitted('a');
        // A caller cannot choose a stamp: the store owns it.
        return { ...run, events: run.events.map((e) => ({ ...e, tx: 999_999_999, status: undefined })) };
      });
      const second = await store.mutateRun('a', step('started', 'running'));
      const [admittedEvent] = first.after!.events;
      const [kept, started] = second.after!.events;
      expect(admittedEvent!.tx).toBeGreaterThan(0);
      expect(admittedEvent!.tx).not.toBe(999_999_999);
      expect(admittedEvent!.status).toBe('pending');
      expect(kept).toEqual(admittedEvent);
      expect(started!.tx).toBeGreaterThan(admittedEvent!.tx!);
      expect(started!.status).toBe('running');
      expect((await store.getRun('a'))!.events).toEqual(second.after!.events);
    });

    it('hands out every event in commit order across runs, page by page, with no gap and no repeat', async () => {
      const { store } = await openStore();
      await store.mutateRun('a', () => admitted('a'));
      await store.mutateRun('b', () => admitted('b'));
      await store.mutateRun('a', step('started', 'running'));
      await store.mutateRun('b', step('started', 'running'));
      await store.mutateRun('a', (run) => withEvent(withEvent({ ...run!, status: 'success' }, AT, { kind: 'execution', name: 'succeeded' }), AT, { kind: 'execution', name: 'noted' }));
      const all = await readAll(store, null);
      expect(names(all)).toEqual(['a:admitted', 'b:admitted', 'a:started', 'b:started', 'a:succeeded', 'a:noted']);
      for (let i = 1; i < all.length; i++) expect(compareCursors(all[i - 1]!.cursor, all[i]!.cursor)).toBeLessThan(0);
      expect(all.map((e) => e.status)).toEqual(['pending', 'pending', 'running', 'running', 'success', 'success']);
      expect(all[0]).toMatchObject({ runId: 'a', taskId: 'task-a', type: 'doc-sync', internal: false });
      // From the middle: exactly the rest.
      expect(names(await readAll(store, all[2]!.cursor))).toEqual(['b:started', 'a:succeeded', 'a:noted']);
      expect(await settledPage(store, all[5]!.cursor, 10)).toEqual([]);
    });

    it('stamps claims (started) and concurrent writes in an order every reader agrees on', async () => {
      const { store } = await openStore();
      await Promise.all(['c1', 'c2', 'c3', 'c4'].map((id) => store.mutateRun(id, () => admitted(id))));
      const claimed = await store.claimRuns({ typeLimits: {} }, 3, (run) => withEvent(markRunning(run), AT, { kind: 'execution', name: 'started' }));
      expect(claimed).toHaveLength(3);
      await Promise.all(['c1', 'c2', 'c3'].map((id) => store.mutateRun(id, step('progress'))));
      const all = await readAll(store, null, {}, 3);
      expect(all).toHaveLength(4 + 3 + 3);
      expect(new Set(all.map((e) => `${e.cursor.tx}/${e.cursor.runSeq}/${e.cursor.eventSeq}`)).size).toBe(all.length);
      expect(await readAll(store, null, {}, 100)).toEqual(all);
      expect(claimed.every((run) => run.events.at(-1)!.tx! > 0)).toBe(true);
    });

    it('filters by run, type, status and internal types', async () => {
      const { store } = await openStore();
      await store.mutateRun('a', () => admitted('a', { type: 'doc-sync' }));
      await store.mutateRun('b', () => admitted('b', { type: 'summarize-content' }));
      await store.mutateRun('h', () => admitted('h', { type: 'heartbeat', internal: true }));
      await store.mutateRun('b', step('failed', 'failed'));
      expect(names(await readAll(store, null, { runId: 'b' }))).toEqual(['b:admitted', 'b:failed']);
      expect(names(await readAll(store, null, { type: 'summarize-content' }))).toEqual(['b:admitted', 'b:failed']);
      expect(names(await readAll(store, null, { status: 'failed' }))).toEqual(['b:failed']);
      expect(names(await readAll(store, null))).toEqual(['a:admitted', 'b:admitted', 'b:failed']);
      expect(names(await readAll(store, null, { includeInternal: true }))).toEqual(['a:admitted', 'b:admitted', 'h:admitted', 'b:failed']);
      // A per-run read of an internal run needs no flag.
      expect(names(await readAll(store, null, { runId: 'h' }))).toEqual(['h:admitted']);
    });

    it('starts a new reader at the head: it sees only what is written after, and is woken by those writes only', async () => {
      const { store } = await openStore();
      await store.mutateRun('a', () => admitted('a'));
      const head = await store.runEventsHead();
      // On a shared store the head is the horizon's: while another transaction of the cluster
      // (another test's) is open, `a`'s own admission may still be handed out past it. A new
      // reader may see such an event from just before it started, never miss one after.
      const pastHead = async () =>
        names(await settledPage(store, head, 10)).filter((event) => options.exclusive || event !== 'a:admitted');
      expect(await pastHead()).toEqual([]);
      let wakes = 0;
      const stop = store.onRunEvents(() => wakes++);
      // A write that appends no event moves no head and wakes nobody.
      await store.mutateRun('a', (run) => ({ ...run!, operatorSummary: 'no event' }));
      expect(wakes).toBe(0);
      await store.mutateRun('a', step('started', 'running'));
      expect(wakes).toBeGreaterThanOrEqual(1);
      stop();
      const atStop = wakes;
      expect(await pastHead()).toEqual(['a:started']);
      await store.mutateRun('b', () => admitted('b'));
      expect(wakes).toBe(atStop);
      expect(compareCursors(await store.runEventsHead(), head)).toBeGreaterThan(0);
    });

    // Only where one process owns the store: a shared store's stamps are the database's.
    if (options.exclusive) it('keeps cursors across a restart, and stamps later writes past the earlier ones even when the newest run was pruned', async () => {
      const { store, dir } = await openStore();
      await store.mutateRun('kept', () => admitted('kept'));
      await store.mutateRun('gone', () => admitted('gone'));
      await store.mutateRun('gone', step('succeeded', 'success'));
      const before = await readAll(store, null);
      const head = await store.runEventsHead();
      expect(await store.pruneRuns(1)).toBe(1);
      await store.close();
      const { store: reopened } = await openStore(dir);
      expect(compareCursors(await reopened.runEventsHead(), head)).toBeGreaterThanOrEqual(0);
      expect(await readAll(reopened, null)).toEqual(before.filter((e) => e.runId === 'kept'));
      await reopened.mutateRun('kept', step('started', 'running'));
      expect(names(await readAll(reopened, head))).toEqual(['kept:started']);
      expect(names(await readAll(reopened, before.at(-1)!.cursor))).toEqual(['kept:started']);
    });
  });
}

describeRunEventFeed('FileStateStore', (dir) => new FileStateStore(join(dir, 'state.json')), { exclusive: true });
describeRunEventFeed('FileStateStore compacting every few writes', (dir) => new FileStateStore(join(dir, 'state.json'), { compactAfterEntries: 3 }), {
  exclusive: true,
});
describeRunEventFeed('SqliteStateStore', (dir) => new SqliteStateStore(join(dir, 'state.sqlite')), { exclusive: true });

/** Takes every stored event back to before stamps existed (no `tx`, no `status`). */
const unstamped = (run: { events: Array<Record<string, unknown>> }) => {
  for (const event of run.events) {
    delete event.tx;
    delete event.status;
  }
};

describe('events stored before stamps existed', () => {
  async function checkLegacy(store: StateStore): Promise<void> {
    const legacy = await readAll(store, null);
    expect(names(legacy)).toEqual(['old:admitted']);
    expect(legacy[0]!.cursor.tx).toBe(0);
    // Its status was not recorded: the run's own stands in.
    expect(legacy[0]!.status).toBe('pending');
    const head = await store.runEventsHead();
    expect(await settledPage(store, head, 10)).toEqual([]);
    await store.mutateRun('old', step('started', 'running'));
    const next = await readAll(store, head);
    expect(names(next)).toEqual(['old:started']);
    expect(next[0]!.cursor.tx).toBeGreaterThan(0);
    // The old event keeps no stamp: it is not announced again.
    expect((await store.getRun('old'))!.events[0]!.tx).toBeUndefined();
    await store.close();
  }

  it('reads them at stamp 0 on SQLite upgraded from layout 5, and stamps only what is written after', async () => {
    const path = join(tempDir('legacy-sqlite-'), 'state.sqlite');
    const first = new SqliteStateStore(path);
    await first.open();
    await first.mutateRun('old', () => admitted('old'));
    await first.close();
    const db = new Database(path);
    const doc = JSON.parse((db.prepare("SELECT doc FROM runs WHERE run_id = 'old'").get() as { doc: string }).doc);
    unstamped(doc);
    db.prepare("UPDATE runs SET doc = ? WHERE run_id = 'old'").run(JSON.stringify(doc));
    undoLayout7(db);
    db.exec("DROP INDEX runs_last_tx; ALTER TABLE runs DROP COLUMN last_tx; DELETE FROM counters WHERE name = 'event_tx'; DELETE FROM schema_migrations WHERE version = 6");
    db.close();
    const upgraded = new SqliteStateStore(path);
    await upgraded.open();
    await checkLegacy(upgraded);
  });

  it('reads them at stamp 0 from a file store snapshot written before', async () => {
    const path = join(tempDir('legacy-file-'), 'state.json');
    const first = new FileStateStore(path);
    await first.open();
    await first.mutateRun('old', () => admitted('old'));
    await first.close();
    const snapshot = JSON.parse(readFileSync(path, 'utf8'));
    for (const run of snapshot.runs) unstamped(run);
    writeFileSync(path, JSON.stringify(snapshot));
    const reopened = new FileStateStore(path);
    await reopened.open();
    await checkLegacy(reopened);
  });
});

const PG_SKIP = 'TEST_DATABASE_URL unset: PostgreSQL run event feed skipped';
const schemas = new Map<string, string>();
afterAll(async () => {
  if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, [...schemas.values()]);
});
function postgresFor(dir: string): PostgresStateStore {
  let schema = schemas.get(dir);
  if (schema === undefined) {
    schema = uniqueSchema(`ev_${createHash('sha256').update(dir).digest('hex').slice(0, 8)}`);
    schemas.set(dir, schema);
  }
  return new PostgresStateStore(postgresUrlWithSchema(TEST_DATABASE_URL!, schema), { poolSize: 4 });
}
describe.skipIf(!TEST_DATABASE_URL)(`PostgresStateStore (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : PG_SKIP})`, () => {
  describeRunEventFeed('PostgresStateStore', postgresFor, { exclusive: false });

  it('never hands out an event before every transaction stamped earlier has ended, though that one commits later', async () => {
    const store = postgresFor('gapless');
    await store.open();
    const slow = new pg.Client({ connectionString: store.connection.connectionString, options: `-c search_path=${store.schema}` });
    await slow.connect();
    try {
      await store.mutateRun('early', () => admitted('early'));
      await store.mutateRun('late', () => admitted('late'));
      const head = (await readAll(store, null)).at(-1)!.cursor;
      // The earlier transaction stamps its event first and stays open...
      await slow.query('BEGIN');
      const before = (await store.getRun('early'))!;
      const { rows } = await slow.query<{ tx: string }>(`SELECT ${TX_ID}`);
      const early = await updateRun(slow, stampedIn(before, step('slow')(before), Number(rows[0]!.tx)));
      // ...while a later-stamped one commits.
      await store.mutateRun('late', step('quick'));
      const late = (await store.getRun('late'))!.events.at(-1)!;
      expect(late.tx).toBeGreaterThan(early.events.at(-1)!.tx!);
      const held = await store.readRunEvents(head, 10);
      expect(held.events).toEqual([]);
      expect(held.heldBack).toBe(true);
      expect((await store.runEventsHead()).tx).toBeLessThan(early.events.at(-1)!.tx!);
      await slow.query('COMMIT');
      expect(names(await readAll(store, head))).toEqual(['early:slow', 'late:quick']);
    } finally {
      await slow.end();
      await store.close();
    }
  });
});
if (!TEST_DATABASE_URL) it.skip(PG_SKIP, () => undefined);
