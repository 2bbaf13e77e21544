import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunLogLine, RunLogListener } from '../../src/domain/run-log-line.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import type { RunEventHub } from '../../src/events/run-event-hub.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import type { StateStore, StoredRunEvent } from '../../src/store/types.js';
import { withEvent } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { MemorySink, testHub } from '../support/event-streams.js';
import { makeRun } from '../support/runs.js';

const AT = new Date('2026-01-01T00:00:00Z');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const admitted = (runId: string, overrides: Partial<RunRecord> = {}) =>
  withEvent(makeRun({ runId, taskId: `task-${runId}`, ...overrides }), AT, { kind: 'queue', name: 'admitted' });
const step = (name: string, status?: RunRecord['status']) => (run: RunRecord | null) =>
  withEvent({ ...run!, ...(status ? { status } : {}) }, AT, { kind: 'execution', name });

/** Every stored event, in cursor order. */
async function everything(store: StateStore): Promise<StoredRunEvent[]> {
  const all: StoredRunEvent[] = [];
  for (;;) {
    const page = await store.readRunEvents(all.at(-1)?.cursor ?? null, 500, { includeInternal: true });
    all.push(...page.events);
    if (page.events.length < 500) return all;
  }
}

/** A store whose change-feed reads take a random few milliseconds: more interleavings of feed, history and writes. */
function jittery(store: StateStore): StateStore {
  return Object.assign(Object.create(store) as StateStore, {
    readRunEvents: async (...args: Parameters<StateStore['readRunEvents']>) => {
      await sleep(Math.random() * 4);
      return store.readRunEvents(...args);
    },
  });
}

const idOf = (entry: StoredRunEvent) => `${entry.cursor.tx.toString(36)}.${entry.cursor.runSeq.toString(36)}.${entry.cursor.eventSeq.toString(36)}`;

const STORES: Array<[string, (dir: string) => StateStore]> = [
  ['file', (dir) => new FileStateStore(join(dir, 'state.json'))],
  ['sqlite', (dir) => new SqliteStateStore(join(dir, 'state.sqlite'))],
];

describe.each(STORES)('event hub over the %s store', (_name, makeStore) => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const done of cleanup.splice(0).reverse()) await done();
  });
  async function setUp(options: Parameters<typeof testHub>[1] = {}): Promise<{ store: StateStore; hub: RunEventHub }> {
    const store = makeStore(tempDir('event-hub-'));
    await store.open();
    const hub = testHub(jittery(store), options);
    cleanup.push(() => store.close(), () => hub.close());
    return { store, hub };
  }

  it('gives every client, whenever it joins and from whatever Last-Event-ID, the exact rest of the feed while writers run', async () => {
    // A small buffer: the feed's pages waiting beside a client's history read overflow and are re-read from the store.
    const { store, hub } = await setUp({ pageSize: 7, bufferBytes: 4096 });
    const clients: Array<{ sink: MemorySink; after: string | null }> = [];
    let seen: string[] = [];
    const join = async (resumeFrom: string | null) => {
      const sink = new MemorySink();
      (await hub.prepareFeedStream({}, { key: `k${clients.length % 7}`, lastEventId: resumeFrom ?? undefined })).start(sink);
      clients.push({ sink, after: resumeFrom });
    };
    const writer = async (w: number) => {
      for (let r = 0; r < 6; r++) {
        const runId = `w${w}-r${r}`;
        await store.mutateRun(runId, () => admitted(runId));
        for (let s = 0; s < 8; s++) await store.mutateRun(runId, step(`step-${s}`, 'running'));
        await store.mutateRun(runId, step('succeeded', 'success'));
      }
    };
    const joiner = async () => {
      for (let i = 0; i < 24; i++) {
        await sleep(Math.random() * 15);
        seen = (await everything(store)).map(idOf);
        // From the head, from the start of the feed's history, or from an id some client got.
        const pick = Math.random();
        await join(pick < 0.3 || seen.length === 0 ? null : seen[Math.floor(Math.random() * seen.length)]!);
      }
    };
    await Promise.all([writer(1), writer(2), writer(3), joiner()]);
    await sleep(250); // the last joiners' streams read their head first
    // One more event after the last client joined: every client, from the head too, must get it.
    await store.mutateRun('last', () => admitted('last'));
    const all = (await everything(store)).map(idOf);
    expect(all).toHaveLength(3 * 6 * 10 + 1);
    for (const { sink, after } of clients) await sink.until(() => sink.frames.some((f) => f.id === all.at(-1)), 10_000, `the last event (client from ${after ?? 'the head'})`);
    for (const { sink, after } of clients) {
      const got = sink.runEvents().map((e) => e.id);
      expect(new Set(got).size).toBe(got.length);
      if (after !== null) {
        expect(got).toEqual(all.slice(all.indexOf(after) + 1));
      } else {
        // Joined at the head: a contiguous tail of the feed.
        expect(got).toEqual(all.slice(all.length - got.length));
      }
    }
  }, 60_000);

  it('replays a run, follows it, and after its terminal write sends that write’s remaining events, then `end`', async () => {
    // Pages of one event: the feed hands out the terminal write's first event alone.
    const { store, hub } = await setUp({ pageSize: 1 });
    await store.mutateRun('solo', () => admitted('solo'));
    await store.mutateRun('other', () => admitted('other'));
    const sink = new MemorySink();
    (await hub.prepareRunStream('solo', { key: 'k' })).start(sink);
    await sink.until(() => sink.runEvents().length === 1, 5000, 'the replay');
    await store.mutateRun('solo', step('started', 'running'));
    await store.mutateRun('other', step('started', 'running'));
    await store.mutateRun('solo', (run) => withEvent(step('succeeded', 'success')(run)!, AT, { kind: 'execution', name: 'accounted' }));
    await sink.until(() => sink.ended, 5000, 'end');
    expect(sink.runEvents().map((e) => e.data.name)).toEqual(['admitted', 'started', 'succeeded', 'accounted']);
    expect(sink.runEvents().every((e) => e.data.runId === 'solo')).toBe(true);
    expect(sink.frames.at(-1)).toMatchObject({ event: 'end', data: JSON.stringify({ runId: 'solo', status: 'success' }) });
    expect(hub.openStreams).toBe(0);
    await expect(hub.prepareRunStream('missing', { key: 'k' })).rejects.toMatchObject({ code: 'not_found' });
  });

  it('sends live log lines to their run’s streams only, from publishLogLine and from the live log source', async () => {
    let source: RunLogListener | null = null;
    const { store, hub } = await setUp({ liveLogs: { subscribe: (_runId, listener) => ((source = listener), () => (source = null)) } });
    await store.mutateRun('a', () => admitted('a'));
    await store.mutateRun('b', () => admitted('b'));
    const [ofA, ofB, all] = [new MemorySink(), new MemorySink(), new MemorySink()];
    (await hub.prepareRunStream('a', { key: 'k' })).start(ofA);
    (await hub.prepareRunStream('b', { key: 'k' })).start(ofB);
    (await hub.prepareFeedStream({}, { key: 'k' })).start(all);
    await ofA.until(() => ofA.runEvents().length === 1);
    const line = (runId: string, text: string): RunLogLine => ({ runId, attemptId: `${runId}#1`, at: AT.toISOString(), stream: 'stderr', line: text });
    hub.publishLogLine(line('a', 'from the hub'));
    source!(line('a', 'from the capture'));
    source!(line('b', 'for b'));
    await ofA.until(() => ofA.frames.filter((f) => f.event === 'log').length === 2);
    const logs = ofA.frames.filter((f) => f.event === 'log');
    expect(logs.map((f) => JSON.parse(f.data).line)).toEqual(['from the hub', 'from the capture']);
    expect(logs.every((f) => f.id === null)).toBe(true);
    expect(JSON.parse(logs[0]!.data)).toEqual(line('a', 'from the hub'));
    await ofB.until(() => ofB.frames.some((f) => f.event === 'log'));
    expect(ofB.frames.filter((f) => f.event === 'log').map((f) => JSON.parse(f.data).line)).toEqual(['for b']);
    expect(all.frames.some((f) => f.event === 'log')).toBe(false);
    await hub.close();
    expect(source).toBeNull();
  });

  it('sends keepalive comments at the injected interval, and caps streams per key until one closes', async () => {
    const { hub } = await setUp({ keepaliveMs: 20, maxStreamsPerKey: 2 });
    const sinks = [new MemorySink(), new MemorySink()];
    for (const sink of sinks) (await hub.prepareFeedStream({}, { key: 'capped' })).start(sink);
    await sinks[0]!.until(() => sinks[0]!.frames.filter((f) => f.comment === 'keepalive').length >= 2, 2000, 'keepalives');
    await expect(hub.prepareFeedStream({}, { key: 'capped' })).rejects.toMatchObject({ code: 'rate_limited' });
    // A prepared stream that is never started (HEAD) gives its slot back.
    (await hub.prepareFeedStream({}, { key: 'other' })).release();
    sinks[0]!.leave();
    const again = await hub.prepareFeedStream({}, { key: 'capped' });
    again.release();
    await expect(hub.prepareFeedStream({}, { key: 'capped', lastEventId: 'nonsense' })).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
