import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FeedPage, filterKey } from '../../src/events/feed-page.js';
import { HELD_BACK_MAX_RETRY_MS, RunEventFeed, type FeedSubscriber } from '../../src/events/run-event-feed.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { StoredRunEvent } from '../../src/store/types.js';
import { withEvent } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { silentLogger } from '../support/event-streams.js';
import { makeRun } from '../support/runs.js';

const AT = new Date('2026-01-01T00:00:00Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function entry(n: number, overrides: Partial<StoredRunEvent> = {}): StoredRunEvent {
  return {
    cursor: { tx: n, runSeq: 1, eventSeq: 1 },
    runId: `run-${n}`,
    taskId: `task-${n}`,
    type: 'doc-sync',
    internal: false,
    status: 'pending',
    event: { seq: 1, at: AT.toISOString(), kind: 'queue', name: 'admitted' },
    ...overrides,
  };
}

describe('a feed page', () => {
  it('works out what each kind of stream takes once, and gives every stream of that kind the same slice', () => {
    const page = FeedPage.of([
      entry(1),
      entry(2, { type: 'heartbeat', internal: true }),
      entry(3, { status: 'running' }),
      entry(4, { runId: 'run-1', type: 'other' }),
    ]);
    const all = { includeInternal: false };
    const first = page.slice(all, filterKey(all));
    expect(page.slice({ includeInternal: false }, filterKey({ includeInternal: false }))).toBe(first);
    expect(first.events.map((e) => e.entry.cursor.tx)).toEqual([1, 3, 4]);
    expect(first.frames).toEqual(Buffer.concat(first.events.map((e) => e.frame)));

    const running = { status: 'running' as const };
    expect(page.slice(running, filterKey(running)).events.map((e) => e.entry.cursor.tx)).toEqual([3]);
    const internal = { type: 'heartbeat', includeInternal: true };
    expect(page.slice(internal, filterKey(internal)).events.map((e) => e.entry.cursor.tx)).toEqual([2]);
    const none = { type: 'missing', includeInternal: true };
    expect(page.slice(none, filterKey(none)).events).toHaveLength(0);

    expect(page.ofRun('run-1').map((e) => e.entry.cursor.tx)).toEqual([1, 4]);
    expect(page.ofRun('run-9')).toHaveLength(0);
    expect(page.bytes).toBe(page.events.reduce((sum, e) => sum + e.frame.length, 0));
  });
});

/** A subscriber whose client holds `unsent` bytes: the test decides how fast it takes them. */
class Follower implements FeedSubscriber {
  readonly pages: FeedPage[] = [];
  unsent = 0;
  deliver(page: FeedPage): void {
    this.pages.push(page);
  }
  get unsentBytes(): number {
    return this.unsent;
  }
  get events(): number {
    return this.pages.reduce((sum, page) => sum + page.events.length, 0);
  }
}

describe('the feed behind a burst', () => {
  const cleanup: Array<() => Promise<unknown> | void> = [];
  afterEach(async () => {
    for (const done of cleanup.splice(0).reverse()) await done();
  });

  async function burst(events: number) {
    const store = new FileStateStore(join(tempDir('fan-out-'), 'state.json'));
    await store.open();
    cleanup.push(() => store.close());
    // Small pages and a read bound of one page: each read hands out ten events at most.
    const feed = new RunEventFeed({ store, channel: null, logger: silentLogger, pageSize: 10, maxReadBytes: 1 });
    const write = () =>
      Promise.all(
        Array.from({ length: events }, (_, i) => store.mutateRun(`burst-${i}`, () => withEvent(makeRun({ runId: `burst-${i}`, taskId: `burst-${i}` }), AT, { kind: 'queue', name: 'admitted' }))),
      );
    return { feed, write };
  }

  it('waits while most clients are still taking what they were handed, then goes on', async () => {
    const { feed, write } = await burst(50);
    const followers = [new Follower(), new Follower(), new Follower()];
    for (const follower of followers) await feed.subscribe(follower);
    cleanup.push(() => followers.forEach((f) => feed.unsubscribe(f)));
    // Two of three clients hold more than a read's worth and take it slowly.
    followers[0]!.unsent = 50_000;
    followers[1]!.unsent = 50_000;
    await write();
    const drain = async (ms: number) => {
      for (let t = 0; t < ms; t += 10) {
        followers[0]!.unsent -= 100;
        followers[1]!.unsent -= 100;
        await sleep(10);
      }
    };
    await drain(150);
    // Behind the burst, one read went out and the rest waits in the store, not in the clients' buffers.
    const held = followers[2]!.events;
    expect(held).toBeGreaterThan(0);
    expect(held).toBeLessThan(50);
    await drain(450);
    for (const follower of followers) expect(follower.events).toBe(held);
    // They took it all: the feed hands out the rest, to every client, in order.
    followers[0]!.unsent = 0;
    followers[1]!.unsent = 0;
    for (let i = 0; i < 100 && followers[2]!.events < 50; i++) await sleep(20);
    for (const follower of followers) {
      const cursors = follower.pages.flatMap((page) => page.events.map((e) => e.entry.cursor.tx));
      expect(cursors).toHaveLength(50);
      expect([...cursors].sort((a, b) => a - b)).toEqual(cursors);
    }
  }, 20_000);

  it('does not wait for clients that stopped taking their bytes (they meet their bound instead)', async () => {
    const { feed, write } = await burst(50);
    const followers = [new Follower(), new Follower()];
    for (const follower of followers) await feed.subscribe(follower);
    cleanup.push(() => followers.forEach((f) => feed.unsubscribe(f)));
    for (const follower of followers) follower.unsent = 50_000;
    await write();
    for (let i = 0; i < 100 && followers[0]!.events < 50; i++) await sleep(20);
    expect(followers[0]!.events).toBe(50);
  }, 20_000);
});

describe('the feed while the store holds events back', () => {
  it('hands them out within a bounded wait once the hold ends, however long the hold and the poll interval', async () => {
    const store = new FileStateStore(join(tempDir('held-back-'), 'state.json'));
    await store.open();
    // The store's horizon held by a long transaction elsewhere: every read answers "held back".
    let holding = true;
    let reads = 0;
    const readRunEvents = store.readRunEvents.bind(store);
    store.readRunEvents = (...args) => {
      reads++;
      return holding ? Promise.resolve({ events: [], heldBack: true }) : readRunEvents(...args);
    };
    // A poll far longer than the test: only the held-back re-reads can find the event.
    const feed = new RunEventFeed({ store, channel: null, logger: silentLogger, pollIntervalMs: 60_000 });
    const follower = new Follower();
    await feed.subscribe(follower);
    try {
      await store.mutateRun('held', () => withEvent(makeRun({ runId: 'held', taskId: 'held' }), AT, { kind: 'queue', name: 'admitted' }));
      // Long enough for a doubling wait to have passed 2.5 s (5, 10, ... 1280, 2560 ms).
      await sleep(2700);
      expect(follower.events).toBe(0);
      expect(reads).toBeGreaterThan(2700 / HELD_BACK_MAX_RETRY_MS / 2);
      holding = false;
      const released = Date.now();
      for (let i = 0; i < 200 && follower.events === 0; i++) await sleep(10);
      expect(follower.events).toBe(1);
      expect(Date.now() - released).toBeLessThan(1000);
    } finally {
      feed.unsubscribe(follower);
      await store.close();
    }
  }, 20_000);
});
