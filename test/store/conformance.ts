import { shownTarget } from '../../src/store/shown-target.js';
import { afterEach, describe, expect, it } from 'vitest';
import type { StateStore } from '../../src/store/types.js';
import type { LimitBucket } from '../../src/store/limit-buckets.js';
import { candidateReads } from '../../src/store/fair-claims.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import type { TaskRecord } from '../../src/domain/orchestrator-state.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun, markRunning } from '../support/runs.js';

/**
 * The behaviour every StateStore driver must show. A driver's test file calls this with a
 * factory that builds an unopened store rooted in a fresh directory; calling the factory again
 * with the same directory must reach the same data (that is how reopening is tested).
 */
export function describeStoreConformance(
  name: string,
  makeStore: (dir: string) => StateStore,
  options: { shared?: boolean } = {},
): void {
  /** A shared store (PostgreSQL) is opened by many instances at once; the others are single-owner. */
  const shared = options.shared === true;
  describe(`${name}: StateStore conformance`, () => {
    const open: StateStore[] = [];

    async function openStore(dir = tempDir('store-conformance-')): Promise<{ store: StateStore; dir: string }> {
      const store = makeStore(dir);
      await store.open();
      open.push(store);
      return { store, dir };
    }

    async function reopen(store: StateStore, dir: string): Promise<StateStore> {
      await store.close();
      return (await openStore(dir)).store;
    }

    async function insert(store: StateStore, overrides: Partial<RunRecord> = {}): Promise<RunRecord> {
      const run = makeRun(overrides);
      const result = await store.mutateRun(run.runId, insertIfAbsent(run));
      return result.after!;
    }

    afterEach(async () => {
      for (const store of open.splice(0)) await store.close();
    });

    describe('mutateRun', () => {
      it('inserts exactly once under 200 concurrent insert-if-absent calls on one id', async () => {
        const { store } = await openStore();
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) =>
            store.mutateRun('run-1', insertIfAbsent(makeRun({ runId: 'run-1', requestedBy: `caller-${i}` }))),
          ),
        );
        const inserted = results.filter((r) => r.changed);
        expect(inserted).toHaveLength(1);
        expect(inserted[0]!.before).toBeNull();
        const winner = inserted[0]!.after!.requestedBy;
        const seen = results.filter((r) => !r.changed);
        expect(seen).toHaveLength(199);
        for (const r of seen) {
          expect(r.before?.requestedBy).toBe(winner);
          expect(r.after?.requestedBy).toBe(winner);
        }
        expect((await store.getRun('run-1'))?.requestedBy).toBe(winner);
      });

      it('assigns seq in admission order, ignoring the mutator, and keeps it on update', async () => {
        const { store } = await openStore();
        const a = await insert(store, { runId: 'a', seq: 999 });
        const b = await insert(store, { runId: 'b', seq: 1 });
        expect(a.seq).toBeGreaterThan(0);
        expect(b.seq).toBeGreaterThan(a.seq);
        const moved = await store.mutateRun('b', (cur) => ({ ...cur!, seq: 0, status: 'running' }));
        expect(moved.after?.seq).toBe(b.seq);
        expect((await store.getRun('b'))?.seq).toBe(b.seq);
      });

      it('never lets a mutator change the stored record through its argument, and reports before/after', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'r' });
        // Mutators are pure; one that is not either works on a copy (the change goes nowhere) or
        // is handed the stored record deep-frozen and throws, failing its write.
        const untouched = await store
          .mutateRun('r', (cur) => {
            cur!.status = 'failed';
            cur!.payload.extra = 1;
            return null;
          })
          .catch((err: unknown) => err);
        if (untouched instanceof Error) expect(untouched).toBeInstanceOf(TypeError);
        else expect(untouched).toMatchObject({ changed: false, after: { status: 'pending' } });
        const stored = await store.getRun('r');
        expect(stored?.status).toBe('pending');
        expect(stored?.payload.extra).toBeUndefined();

        const updated = await store.mutateRun('r', (cur) => ({ ...cur!, status: 'success', queueState: null }));
        expect(updated).toMatchObject({ changed: true, before: { status: 'pending' }, after: { status: 'success' } });

        const missing = await store.mutateRun('absent', () => null);
        expect(missing).toEqual({ before: null, after: null, changed: false });
        expect(await store.getRun('absent')).toBeNull();
      });

      it('stores nothing when the mutator throws or returns another run id', async () => {
        const { store } = await openStore();
        await expect(
          store.mutateRun('x', () => {
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        await expect(store.mutateRun('x', () => makeRun({ runId: 'y' }))).rejects.toThrow(/y/);
        expect(await store.getRun('x')).toBeNull();
        expect(await store.getRun('y')).toBeNull();
        // The store keeps working after a refused write.
        await insert(store, { runId: 'x' });
        expect((await store.getRun('x'))?.runId).toBe('x');
      });

      it('changing a returned record never changes the stored one (it is a copy or frozen)', async () => {
        const { store } = await openStore();
        const stored = await insert(store, { runId: 'r' });
        const attempt = (change: () => void) => {
          try {
            change();
          } catch (err) {
            expect(err).toBeInstanceOf(TypeError);
          }
        };
        attempt(() => (stored.status = 'failed'));
        const read = await store.getRun('r');
        attempt(() => (read!.payload.mutated = true));
        const listed = (await store.listRuns({})).items[0]!;
        attempt(() => listed.events.push({ seq: 99, at: '', kind: 'queue', name: 'x' }));
        expect(await store.getRun('r')).toMatchObject({ status: 'pending', payload: {} });
        expect((await store.getRun('r'))!.events).toHaveLength(stored.events.length);
      });
    });

    describe('claimNextRun', () => {
      it('claims ready runs in FIFO order and skips held ones', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'first' });
        await insert(store, { runId: 'held', queueState: 'held' });
        await insert(store, { runId: 'second' });
        await insert(store, { runId: 'third' });
        const claimed: string[] = [];
        for (let i = 0; i < 4; i++) {
          const run = await store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r));
          if (run !== null) claimed.push(run.runId);
        }
        expect(claimed).toEqual(['first', 'second', 'third']);
        expect(await store.getRun('first')).toMatchObject({ status: 'running', queueState: null });
        expect((await store.getRun('held'))?.queueState).toBe('held');
      });

      it('respects typeLimits against runs already running, and excludeTypes', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'busy-1', type: 'rss-sweep', status: 'running', queueState: null });
        await insert(store, { runId: 'rss-next', type: 'rss-sweep' });
        await insert(store, { runId: 'doc-next', type: 'doc-sync' });
        await insert(store, { runId: 'heartbeat-next', type: 'heartbeat' });

        const limited = await store.claimNextRun({ typeLimits: { 'rss-sweep': 1 } }, (r) => markRunning(r));
        expect(limited?.runId).toBe('doc-next');

        const excluded = await store.claimNextRun(
          { typeLimits: { 'rss-sweep': 2 }, excludeTypes: ['rss-sweep'] },
          (r) => markRunning(r),
        );
        expect(excluded?.runId).toBe('heartbeat-next');

        expect(await store.claimNextRun({ typeLimits: { 'rss-sweep': 1 } }, (r) => markRunning(r))).toBeNull();
        const allowed = await store.claimNextRun({ typeLimits: { 'rss-sweep': 2 } }, (r) => markRunning(r));
        expect(allowed?.runId).toBe('rss-next');
        expect(await store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r))).toBeNull();
      });

      it('a limit of 0 blocks a type; a run back in ready keeps its place in the queue', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'old', type: 'a' });
        await insert(store, { runId: 'new', type: 'b' });
        expect((await store.claimNextRun({ typeLimits: { a: 0 } }, (r) => markRunning(r)))?.runId).toBe('new');
        await store.mutateRun('new', (cur) => ({ ...cur!, status: 'retrying', queueState: 'ready' }));
        expect((await store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r)))?.runId).toBe('old');
        expect((await store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r)))?.runId).toBe('new');
      });

      it('50 concurrent claims over 20 ready runs take 20 distinct runs', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 20; i++) await insert(store, { runId: `run-${i}` });
        const claims = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, `owner-${i}`))),
        );
        const taken = claims.filter((c): c is RunRecord => c !== null).map((c) => c.runId);
        expect(taken).toHaveLength(20);
        expect(new Set(taken).size).toBe(20);
        expect((await store.countRuns()).byStatus.running).toBe(20);
      });

      it('concurrent claims never exceed a type limit', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 10; i++) await insert(store, { runId: `run-${i}`, type: 'lane' });
        const claims = await Promise.all(
          Array.from({ length: 10 }, () => store.claimNextRun({ typeLimits: { lane: 3 } }, (r) => markRunning(r))),
        );
        expect(claims.filter((c) => c !== null)).toHaveLength(3);
      });
    });

    describe('claimRuns (when the driver has it)', () => {
      it('claims up to max oldest first, counting its own claims toward the type limits', async () => {
        const { store } = await openStore();
        if (!store.claimRuns) return;
        for (let i = 0; i < 4; i++) await insert(store, { runId: `lane-${i}`, type: 'lane' });
        await insert(store, { runId: 'other', type: 'other' });
        await insert(store, { runId: 'held', queueState: 'held' });
        const first = await store.claimRuns({ typeLimits: { lane: 2 } }, 10, (r) => markRunning(r));
        expect(first.map((r) => r.runId)).toEqual(['lane-0', 'lane-1', 'other']);
        expect(first.every((r) => r.status === 'running')).toBe(true);
        expect(await store.claimRuns({ typeLimits: { lane: 2 } }, 10, (r) => markRunning(r))).toEqual([]);
        const capped = await store.claimRuns({ typeLimits: {} }, 1, (r) => markRunning(r));
        expect(capped.map((r) => r.runId)).toEqual(['lane-2']);
        expect((await store.getRun('lane-3'))?.status).toBe('pending');
        expect((await store.countRuns()).byStatus.running).toBe(4);
      });

      it('concurrent batches never take a run twice', async () => {
        const { store } = await openStore();
        if (!store.claimRuns) return;
        for (let i = 0; i < 30; i++) await insert(store, { runId: `run-${i}` });
        const batches = await Promise.all(
          Array.from({ length: 12 }, (_, i) => store.claimRuns!({ typeLimits: {} }, 4, (r) => markRunning(r, `owner-${i}`))),
        );
        const taken = batches.flat().map((r) => r.runId);
        expect(taken).toHaveLength(30);
        expect(new Set(taken).size).toBe(30);
      });
    });

    describe('claims in fair order (src/store/fair-claims.ts)', () => {
      const T0 = Date.parse('2026-03-01T12:00:00.000Z');
      const at = (ms: number) => new Date(T0 + ms).toISOString();
      /** Claims one run at a time, each starting a second after the last (the fairness turn reads start times). */
      async function claimOneByOne(store: StateStore, count: number, nowMs = T0): Promise<string[]> {
        const ids: string[] = [];
        for (let i = 0; i < count; i++) {
          const run = await store.claimNextRun({ typeLimits: {}, now: new Date(nowMs) }, (r) => ({ ...markRunning(r), startedAt: at(1000 * (i + 1)) }));
          if (run === null) break;
          ids.push(run.runId);
        }
        return ids;
      }

      it('takes higher priorities first, oldest first within one', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'low', priority: 1, createdAt: at(0) });
        await insert(store, { runId: 'default', createdAt: at(0) });
        await insert(store, { runId: 'high', priority: 5, createdAt: at(0) });
        await insert(store, { runId: 'high-later', priority: 5, createdAt: at(0) });
        expect(await claimOneByOne(store, 5)).toEqual(['high', 'high-later', 'default', 'low']);
      });

      it('takes turns across concurrency keys, one by one and within a batch, oldest first within a key', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 5; i++) await insert(store, { runId: `flood-${i}`, concurrencyKey: 'flood', createdAt: at(0) });
        await insert(store, { runId: 'light-0', concurrencyKey: 'light', createdAt: at(0) });
        await insert(store, { runId: 'light-1', concurrencyKey: 'light', createdAt: at(0) });
        await insert(store, { runId: 'plain', createdAt: at(0) });
        expect(await claimOneByOne(store, 4)).toEqual(['flood-0', 'light-0', 'plain', 'flood-1']);
        if (!store.claimRuns) return;
        // `flood` was claimed last: the batch starts with the key that waited longest.
        const batch = await store.claimRuns({ typeLimits: {}, now: new Date(T0) }, 3, (r) => ({ ...markRunning(r), startedAt: at(10_000) }));
        expect(batch.map((r) => r.runId)).toEqual(['light-1', 'flood-2', 'flood-3']);
      });

      it('raises a waiting run one priority level per minute waited, so it is not passed over forever', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'old-low', priority: 1, createdAt: at(0) });
        await insert(store, { runId: 'new-high-1', priority: 5, createdAt: at(180_000) });
        await insert(store, { runId: 'new-high-2', priority: 5, createdAt: at(180_000) });
        // After three minutes old-low counts as 4: the fresh 5s go first.
        expect(await claimOneByOne(store, 1, T0 + 180_000)).toEqual(['new-high-1']);
        // After four it counts as 5, and is older.
        expect(await claimOneByOne(store, 2, T0 + 240_000)).toEqual(['old-low', 'new-high-2']);
      });

      it('never claims a run that is not ready, whatever its priority', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'held', queueState: 'held', priority: 5 });
        await insert(store, { runId: 'ready', priority: 1 });
        expect(await claimOneByOne(store, 3)).toEqual(['ready']);
      });

      it('never claims a run before its not-before time; once due it waits from then, not from admission', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'later', createdAt: at(0), notBefore: at(60_000) });
        await insert(store, { runId: 'now', createdAt: at(0) });
        expect(await claimOneByOne(store, 3, T0 + 30_000)).toEqual(['now']);
        expect(await store.getRun('later')).toMatchObject({ status: 'pending', queueState: 'ready' });
        // Aging counts from the not-before time: at +150 s this one (3) counts as 4, not 5, so fresh priority 5 work goes first.
        await insert(store, { runId: 'low', priority: 1, createdAt: at(60_000) });
        await insert(store, { runId: 'fresh-5', priority: 5, createdAt: at(150_000) });
        expect(await claimOneByOne(store, 3, T0 + 150_000)).toEqual(['fresh-5', 'later', 'low']);
      });

      it('reads a bounded set per claim: 5,000 ready runs of one key and 1 of another still alternate', async () => {
        const { store } = await openStore();
        const flood = Array.from({ length: 5000 }, (_, i) => makeRun({ runId: `flood-${String(i).padStart(4, '0')}`, concurrencyKey: 'flood', createdAt: at(0) }));
        for (let i = 0; i < flood.length; i += 500) await Promise.all(flood.slice(i, i + 500).map((run) => store.mutateRun(run.runId, insertIfAbsent(run))));
        await insert(store, { runId: 'light-0', concurrencyKey: 'light', createdAt: at(0) });
        // Concurrent inserts take their seq in commit order: the flood's oldest three by seq.
        const oldest = (await store.listRuns({ concurrencyKey: 'flood', order: 'oldest', limit: 3 })).items.map((run) => run.runId);
        const before = candidateReads.rows;
        const taken = await claimOneByOne(store, 4);
        const read = candidateReads.rows - before;
        // Neither key was claimed before: the flood's oldest and the light key's one take the first two turns.
        expect(taken).toEqual([oldest[0], 'light-0', oldest[1], oldest[2]]);
        // Four claims read a few dozen rows, not 4 x 5,001.
        expect(read).toBeGreaterThan(0);
        expect(read).toBeLessThan(200);
      }, 120_000);

      it('lists runs by concurrency key', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'a-1', concurrencyKey: 'tenant/a' });
        await insert(store, { runId: 'b-1', concurrencyKey: 'tenant/b' });
        await insert(store, { runId: 'a-2', concurrencyKey: 'tenant/a' });
        await insert(store, { runId: 'none' });
        const page = await store.listRuns({ concurrencyKey: 'tenant/a', order: 'oldest' });
        expect(page.items.map((r) => r.runId)).toEqual(['a-1', 'a-2']);
        expect(page.total).toBe(2);
      });

      it('lists runs carrying every asked tag, exactly, and keeps the tags across a reopen', async () => {
        const { store, dir } = await openStore();
        await insert(store, { runId: 'both', tags: ['team:core', 'env=prod'] });
        await insert(store, { runId: 'core', tags: ['team:core'] });
        await insert(store, { runId: 'prod', tags: ['env=prod', 'x/y'] });
        await insert(store, { runId: 'near', tags: ['team:cor', 'Team:core'] });
        await insert(store, { runId: 'untagged' });
        const ids = async (s: StateStore, tags: string[]) => (await s.listRuns({ tags, order: 'oldest' })).items.map((r) => r.runId);
        expect(await ids(store, ['team:core'])).toEqual(['both', 'core']);
        expect(await ids(store, ['team:core', 'env=prod'])).toEqual(['both']);
        expect(await ids(store, ['env=prod', 'env=prod'])).toEqual(['both', 'prod']);
        expect(await ids(store, ['nowhere'])).toEqual([]);
        // A tag filter combines with the others and `total` counts what it keeps.
        const page = await store.listRuns({ tags: ['env=prod'], idPrefix: 'p' });
        expect(page.items.map((r) => r.runId)).toEqual(['prod']);
        expect(page.total).toBe(1);
        expect((await store.listRuns({ tags: [] })).total).toBe(5);
        const again = await reopen(store, dir);
        expect((await again.getRun('prod'))!.tags).toEqual(['env=prod', 'x/y']);
        expect(await ids(again, ['x/y'])).toEqual(['prod']);
      });
    });

    describe('limit buckets (src/store/limit-buckets.ts)', () => {
      const T0 = Date.parse('2026-03-01T12:00:00.000Z');
      /** Claims up to `max` at `nowMs` under `buckets`, each run starting then. */
      async function claimUnder(store: StateStore, buckets: LimitBucket[], max: number, nowMs = T0): Promise<string[]> {
        const options = { typeLimits: {}, buckets, now: new Date(nowMs) };
        const start = (r: RunRecord) => ({ ...markRunning(r), startedAt: new Date(nowMs).toISOString() });
        if (store.claimRuns) return (await store.claimRuns(options, max, start)).map((r) => r.runId);
        const ids: string[] = [];
        for (let run = await store.claimNextRun(options, start); run !== null && ids.length < max; run = await store.claimNextRun(options, start)) ids.push(run.runId);
        return ids;
      }
      const finish = (store: StateStore, runId: string) => store.mutateRun(runId, (cur) => ({ ...cur!, status: 'success', queueState: null }));

      it('caps the running runs a bucket matches; the runs it holds stay ready and are claimed once it has room', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 4; i++) await insert(store, { runId: `lane-${i}`, type: 'lane' });
        await insert(store, { runId: 'other', type: 'other' });
        const lanes: LimitBucket[] = [{ name: 'lanes', match: { types: ['lane'] }, concurrency: 2 }];
        expect((await claimUnder(store, lanes, 10)).sort()).toEqual(['lane-0', 'lane-1', 'other']);
        expect(await claimUnder(store, lanes, 10)).toEqual([]);
        expect(await store.getRun('lane-2')).toMatchObject({ status: 'pending', queueState: 'ready' });
        await finish(store, 'lane-0');
        expect(await claimUnder(store, lanes, 10)).toEqual(['lane-2']);
      });

      it('caps runs per concurrency key under a key prefix; unkeyed runs and other prefixes pass', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'a-0', concurrencyKey: 'env/a' });
        await insert(store, { runId: 'a-1', concurrencyKey: 'env/a' });
        await insert(store, { runId: 'b-0', concurrencyKey: 'env/b' });
        await insert(store, { runId: 'x-0', concurrencyKey: 'other/x' });
        await insert(store, { runId: 'x-1', concurrencyKey: 'other/x' });
        await insert(store, { runId: 'plain' });
        const perEnv: LimitBucket[] = [{ name: 'deploys', match: { keyPrefix: 'env/' }, perKey: 1 }];
        expect((await claimUnder(store, perEnv, 10)).sort()).toEqual(['a-0', 'b-0', 'plain', 'x-0', 'x-1']);
        expect(await claimUnder(store, perEnv, 10)).toEqual([]);
        await finish(store, 'a-0');
        expect(await claimUnder(store, perEnv, 10)).toEqual(['a-1']);
      });

      it('notes on a run each bucket that held it back, once per attempt; a run no bucket held carries none', async () => {
        const { store, dir } = await openStore();
        await insert(store, { runId: 'h-0', type: 'lane', concurrencyKey: 'env/a' });
        await insert(store, { runId: 'h-1', type: 'lane', concurrencyKey: 'env/a' });
        await insert(store, { runId: 'h-2', type: 'lane', concurrencyKey: 'env/b' });
        const buckets: LimitBucket[] = [
          { name: 'deploys', match: { keyPrefix: 'env/' }, perKey: 1 },
          { name: 'lanes', match: { types: ['lane'] }, concurrency: 2 },
          { name: 'roomy', match: { types: ['lane'] }, concurrency: 50 },
        ];
        expect((await claimUnder(store, buckets, 10)).sort()).toEqual(['h-0', 'h-2']);
        // h-1 waits on both its key's cap and the lane cap, never on the roomy bucket.
        expect((await store.getRun('h-1'))?.bucketHolds).toEqual({ attempt: 1, buckets: ['deploys', 'lanes'] });
        expect(await claimUnder(store, buckets, 10)).toEqual([]);
        const later = await reopen(store, dir);
        expect((await later.getRun('h-1'))?.bucketHolds).toEqual({ attempt: 1, buckets: ['deploys', 'lanes'] });
        await finish(later, 'h-0');
        expect(await claimUnder(later, buckets, 10)).toEqual(['h-1']);
        // The claim keeps the note (the claimer's metric reads it); the runs that never waited have none.
        expect((await later.getRun('h-1'))?.bucketHolds).toEqual({ attempt: 1, buckets: ['deploys', 'lanes'] });
        expect((await later.getRun('h-0'))?.bucketHolds ?? null).toBeNull();
        expect((await later.getRun('h-2'))?.bucketHolds ?? null).toBeNull();
      });

      it('delays runs past a rate, never refusing them: they start once the window moves on', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 3; i++) await insert(store, { runId: `r-${i}`, type: 'lane' });
        const rate: LimitBucket[] = [{ name: 'slow', match: { types: ['lane'] }, rate: { max: 2, windowSeconds: 60 } }];
        expect(await claimUnder(store, rate, 10, T0)).toEqual(['r-0', 'r-1']);
        await finish(store, 'r-0');
        await finish(store, 'r-1');
        expect(await claimUnder(store, rate, 10, T0 + 30_000)).toEqual([]);
        expect(await claimUnder(store, rate, 10, T0 + 61_000)).toEqual(['r-2']);
      });

      it('a change of limits neither loses nor duplicates a waiting run', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 6; i++) await insert(store, { runId: `w-${i}`, concurrencyKey: 'k' });
        const first = await claimUnder(store, [{ name: 'b', match: {}, perKey: 1 }], 10);
        const second = await claimUnder(store, [{ name: 'b', match: {}, perKey: 3 }], 10);
        const third = await claimUnder(store, [], 10);
        const taken = [...first, ...second, ...third];
        expect([first.length, second.length, third.length]).toEqual([1, 2, 3]);
        expect(new Set(taken).size).toBe(6);
        expect((await store.countRuns()).byStatus.running).toBe(6);
      });

      it('counts ready and running runs by type and key, with the oldest ready admission of each', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'q-1', concurrencyKey: 'k', createdAt: '2026-03-01T10:00:02.000Z' });
        await insert(store, { runId: 'q-2', concurrencyKey: 'k', createdAt: '2026-03-01T10:00:01.000Z' });
        await insert(store, { runId: 'q-7', concurrencyKey: 'k', priority: 5, createdAt: '2026-03-01T10:00:04.000Z' });
        await insert(store, { runId: 'q-8', concurrencyKey: 'k', priority: 5, createdAt: '2026-03-01T10:00:02.000Z' });
        await insert(store, { runId: 'q-3', concurrencyKey: 'k', status: 'running', queueState: null });
        await insert(store, { runId: 'q-4', createdAt: '2026-03-01T10:00:03.000Z' });
        await insert(store, { runId: 'q-5', status: 'success', queueState: null });
        await insert(store, { runId: 'q-6', queueState: 'held' });
        // Waiting for a not-before time after the read's: counted as ready, and apart.
        await insert(store, { runId: 'q-9', concurrencyKey: 'k', createdAt: '2026-03-01T10:00:05.000Z', notBefore: '2026-03-01T10:05:00.000Z' });
        // Its not-before time has come by the read's: ready like any other.
        await insert(store, { runId: 'q-10', createdAt: '2026-03-01T10:00:06.000Z', notBefore: '2026-03-01T10:00:30.000Z' });
        const groups = (await store.queueGroups(new Date('2026-03-01T10:01:00.000Z'))).sort((a, b) => a.key.localeCompare(b.key));
        expect(groups).toEqual([
          {
            type: 'doc-sync',
            key: '',
            ready: 2,
            running: 0,
            oldestReadyAt: '2026-03-01T10:00:03.000Z',
            readyByPriority: [{ priority: 3, ready: 2, oldestReadyAt: '2026-03-01T10:00:03.000Z' }],
            notBefore: 0,
          },
          {
            type: 'doc-sync',
            key: 'k',
            ready: 5,
            running: 1,
            oldestReadyAt: '2026-03-01T10:00:01.000Z',
            // Ready runs by their priority, the highest first; the running one counts in `running` only.
            readyByPriority: [
              { priority: 5, ready: 2, oldestReadyAt: '2026-03-01T10:00:02.000Z' },
              { priority: 3, ready: 3, oldestReadyAt: '2026-03-01T10:00:01.000Z' },
            ],
            notBefore: 1,
          },
        ]);
      });

      it('concurrent claims never exceed a per-key cap', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 12; i++) await insert(store, { runId: `c-${i}`, concurrencyKey: `k-${i % 2}` });
        const buckets: LimitBucket[] = [{ name: 'pair', match: {}, perKey: 2 }];
        const claims = await Promise.all(Array.from({ length: 12 }, () => store.claimNextRun({ typeLimits: {}, buckets }, (r) => markRunning(r))));
        const taken = claims.filter((c): c is RunRecord => c !== null);
        expect(taken.filter((r) => r.concurrencyKey === 'k-0')).toHaveLength(2);
        expect(taken.filter((r) => r.concurrencyKey === 'k-1')).toHaveLength(2);
      });
    });

    describe('finishRun (when the driver has it)', () => {
      const record: TaskRecord = { type: 'doc-sync', status: 'completed', timestamp: '2026-01-01T00:00:00Z', durationMs: 3 };
      const finish = (cur: RunRecord | null) => (cur?.status === 'running' ? { ...cur, status: 'success' as const } : null);

      it('stores the run transition, the state change and the task record together, across reopen', async () => {
        const { store, dir } = await openStore();
        if (!store.finishRun) return;
        await insert(store, { runId: 'done', status: 'running', queueState: null });
        const result = await store.finishRun('done', finish, {
          record,
          stateUpdate: (s) => ({ ...s, lastStartedAt: '2026-01-01T00:00:01.000Z' }),
        });
        expect(result).toMatchObject({ changed: true, before: { status: 'running' }, after: { status: 'success' } });
        const reopened = await reopen(store, dir);
        expect((await reopened.getRun('done'))?.status).toBe('success');
        const state = await reopened.getState();
        expect(state).toMatchObject({ tasksProcessed: 1, lastStartedAt: '2026-01-01T00:00:01.000Z' });
        expect(state.taskHistory).toEqual([record]);
      });

      it('records the task alone when there is no state change', async () => {
        const { store } = await openStore();
        if (!store.finishRun) return;
        await insert(store, { runId: 'plain', status: 'running', queueState: null });
        await store.finishRun('plain', finish, { record });
        expect((await store.getState()).tasksProcessed).toBe(1);
      });

      it('shows its state change to the next read on the same store (a state read just before it is not reused)', async () => {
        const { store, dir } = await openStore();
        if (!store.finishRun) return;
        await insert(store, { runId: 'seen', status: 'running', queueState: null });
        expect((await store.getState()).tasksProcessed).toBe(0);
        await store.finishRun('seen', finish, { record, stateUpdate: (s) => ({ ...s, notes: 'after the run' }) });
        const state = await store.getState();
        expect(state).toMatchObject({ tasksProcessed: 1, notes: 'after the run' });
        expect(state.taskHistory).toEqual([record]);
        // A state update that throws rolls its write back; the next read shows the state as it was.
        await insert(store, { runId: 'rolled-back', status: 'running', queueState: null });
        await store
          .finishRun('rolled-back', finish, {
            record,
            stateUpdate: () => {
              throw new Error('state update failed');
            },
          })
          .catch(() => undefined);
        expect(await store.getState()).toMatchObject({ tasksProcessed: 1, notes: 'after the run' });
        // Finished tasks without a state change, one after another: each read equals what the store holds.
        for (let i = 0; i < 3; i += 1) {
          await insert(store, { runId: `plain-${i}`, status: 'running', queueState: null });
          await store.finishRun(`plain-${i}`, finish, { record: { ...record, durationMs: i, error: undefined } as TaskRecord });
          await store.getState();
        }
        const held = await store.getState();
        expect(held.tasksProcessed).toBe(4);
        // The read for handlers that never look at the history: the same document, count included.
        const { taskHistory: _history, ...withoutHistory } = held;
        expect(await store.getStateWithoutHistory()).toMatchObject(withoutHistory);
        const reopened = await reopen(store, dir);
        expect(await reopened.getState()).toStrictEqual(held);
      });

      it('leaves the state untouched when the run is not changed (an attempt no longer owned), and stores nothing when the state update throws', async () => {
        const { store } = await openStore();
        if (!store.finishRun) return;
        await insert(store, { runId: 'gone', status: 'success', queueState: null });
        const stale = await store.finishRun('gone', finish, { record, stateUpdate: (s) => ({ ...s, lastStartedAt: 'x' }) });
        expect(stale.changed).toBe(false);
        expect(await store.finishRun('missing', finish, { record })).toMatchObject({ changed: false, after: null });
        await insert(store, { runId: 'throws', status: 'running', queueState: null });
        await expect(
          store.finishRun('throws', finish, {
            record,
            stateUpdate: () => {
              throw new Error('handler state update failed');
            },
          }),
        ).rejects.toThrow('handler state update failed');
        expect((await store.getRun('throws'))?.status).toBe('running');
        const state = await store.getState();
        expect(state.tasksProcessed).toBe(0);
        expect(state.lastStartedAt).not.toBe('x');
      });
    });

    describe('listRuns and countRuns', () => {
      async function seed(store: StateStore): Promise<void> {
        await insert(store, { runId: 'r1', type: 'doc-sync', status: 'success', queueState: null });
        await insert(store, { runId: 'r2', type: 'rss-sweep', status: 'pending', queueState: 'ready' });
        await insert(store, { runId: 'r3', type: 'heartbeat', internal: true, status: 'success', queueState: null });
        await insert(store, { runId: 'r4', type: 'doc-sync', status: 'pending', queueState: 'held' });
        await insert(store, { runId: 'r5', type: 'doc-sync', status: 'running', queueState: null });
      }

      it('filters, hides internal runs by default and orders newest first', async () => {
        const { store } = await openStore();
        await seed(store);
        const ids = async (query: Parameters<StateStore['listRuns']>[0]) => {
          const { items, total } = await store.listRuns(query);
          return { ids: items.map((r) => r.runId), total };
        };
        expect(await ids({})).toEqual({ ids: ['r5', 'r4', 'r2', 'r1'], total: 4 });
        expect(await ids({ includeInternal: true })).toEqual({ ids: ['r5', 'r4', 'r3', 'r2', 'r1'], total: 5 });
        expect(await ids({ order: 'oldest' })).toEqual({ ids: ['r1', 'r2', 'r4', 'r5'], total: 4 });
        expect(await ids({ type: 'doc-sync' })).toEqual({ ids: ['r5', 'r4', 'r1'], total: 3 });
        expect(await ids({ status: 'pending' })).toEqual({ ids: ['r4', 'r2'], total: 2 });
        expect(await ids({ queueState: 'held' })).toEqual({ ids: ['r4'], total: 1 });
        expect(await ids({ type: 'heartbeat' })).toEqual({ ids: [], total: 0 });
        expect(await ids({ type: 'heartbeat', includeInternal: true })).toEqual({ ids: ['r3'], total: 1 });
        expect(await ids({ type: 'doc-sync', status: 'pending', queueState: 'held' })).toEqual({ ids: ['r4'], total: 1 });
      });

      it('filters by id prefix, case-sensitive, with LIKE wildcards taken as text, combined with the other filters', async () => {
        const { store } = await openStore();
        await insert(store, { runId: '7279f442-aaaa', type: 'doc-sync', status: 'pending', queueState: 'held' });
        await insert(store, { runId: '7279f442-bbbb', type: 'doc-sync', status: 'success', queueState: null });
        await insert(store, { runId: '7279F442-cccc', type: 'doc-sync', status: 'success', queueState: null });
        await insert(store, { runId: 'a%b_c', type: 'rss-sweep' });
        await insert(store, { runId: 'axbyc', type: 'rss-sweep' });
        await insert(store, { runId: '7279f442-internal', type: 'heartbeat', internal: true });
        const ids = async (query: Parameters<StateStore['listRuns']>[0]) => {
          const { items, total } = await store.listRuns(query);
          return { ids: items.map((r) => r.runId), total };
        };
        expect(await ids({ idPrefix: '7279f442' })).toEqual({ ids: ['7279f442-bbbb', '7279f442-aaaa'], total: 2 });
        expect(await ids({ idPrefix: '7279f442', includeInternal: true })).toEqual({ ids: ['7279f442-internal', '7279f442-bbbb', '7279f442-aaaa'], total: 3 });
        expect(await ids({ idPrefix: '7279f442-aaaa' })).toEqual({ ids: ['7279f442-aaaa'], total: 1 });
        expect(await ids({ idPrefix: '7279f442-aaaa-and-more' })).toEqual({ ids: [], total: 0 });
        expect(await ids({ idPrefix: 'a%b' })).toEqual({ ids: ['a%b_c'], total: 1 });
        expect(await ids({ idPrefix: 'a_' })).toEqual({ ids: [], total: 0 });
        expect(await ids({ idPrefix: '7279f442', status: 'pending', queueState: 'held' })).toEqual({ ids: ['7279f442-aaaa'], total: 1 });
        expect(await ids({ idPrefix: '7279f442', limit: 1, afterSeq: (await store.listRuns({ idPrefix: '7279f442', limit: 1 })).items[0]!.seq })).toEqual({
          ids: ['7279f442-aaaa'],
          total: 2,
        });
      });

      it('filters by flow id (step runs and their replays), with the flow step statuses waiting and skipped', async () => {
        const { store, dir } = await openStore();
        const step = (flowId: string, key: string, extra: Partial<RunRecord> = {}) =>
          insert(store, { runId: `flow:${flowId}:${key}`, source: 'flow', flowStep: { flowId, key }, ...extra });
        await step('f1', 'a', { status: 'success', queueState: null });
        await step('f1', 'b', { status: 'waiting', queueState: 'waiting' });
        await step('f1', 'c', { status: 'skipped', queueState: null, flowStep: { flowId: 'f1', key: 'c', skipped: { policy: 'skip', reason: 'x' } } });
        await insert(store, { runId: 'approval-replay:t1', status: 'running', queueState: null, flowStep: { flowId: 'f1', key: 'a' } });
        await step('f10', 'a', { status: 'waiting', queueState: 'waiting' });
        await insert(store, { runId: 'flow:f1:lookalike' });
        const ids = async (query: Parameters<StateStore['listRuns']>[0]) => {
          const { items, total } = await store.listRuns(query);
          return { ids: items.map((r) => r.runId), total };
        };
        expect(await ids({ flowId: 'f1', order: 'oldest' })).toEqual({ ids: ['flow:f1:a', 'flow:f1:b', 'flow:f1:c', 'approval-replay:t1'], total: 4 });
        expect(await ids({ flowId: 'f1', status: 'waiting' })).toEqual({ ids: ['flow:f1:b'], total: 1 });
        expect(await ids({ flowId: 'f1', status: 'skipped' })).toEqual({ ids: ['flow:f1:c'], total: 1 });
        expect(await ids({ status: 'waiting', order: 'oldest' })).toEqual({ ids: ['flow:f1:b', 'flow:f10:a'], total: 2 });
        expect(await ids({ flowId: 'f2' })).toEqual({ ids: [], total: 0 });
        expect((await store.countRuns(true)).byStatus).toMatchObject({ waiting: 2, skipped: 1 });
        // The index follows a run's writes and deletes, also across a reopen.
        await store.mutateRun('flow:f1:b', (run) => (run ? { ...run, status: 'pending', queueState: 'ready' } : null));
        const again = await reopen(store, dir);
        expect((await again.listRuns({ flowId: 'f1', status: 'waiting' })).total).toBe(0);
        expect((await again.listRuns({ flowId: 'f1', status: 'pending' })).items.map((r) => r.runId)).toEqual(['flow:f1:b']);
      });

      it('pages keyed documents by id, descending, between bounds, without the rest of the collection', async () => {
        const { store } = await openStore();
        for (const id of ['0001-aa', '0002-bb', '0002-cc', '0003-dd', '0004-ee']) await store.putDoc('paged', id, { id });
        await store.putDoc('other', '0009-zz', { id: 'other' });
        const page = async (p: Parameters<StateStore['listDocPage']>[1]) => (await store.listDocPage('paged', p)).map((e) => e.id);
        expect(await page({ limit: 2 })).toEqual(['0004-ee', '0003-dd']);
        expect(await page({ below: '0003-dd', limit: 2 })).toEqual(['0002-cc', '0002-bb']);
        expect(await page({ below: '0002-bb', limit: 2 })).toEqual(['0001-aa']);
        expect(await page({ atOrAbove: '0002', limit: 10 })).toEqual(['0004-ee', '0003-dd', '0002-cc', '0002-bb']);
        expect(await page({ below: '0003', atOrAbove: '0002', limit: 10 })).toEqual(['0002-cc', '0002-bb']);
        expect((await store.listDocPage('paged', { limit: 1 }))[0]!.doc).toEqual({ id: '0004-ee' });
        expect(await store.listDocPage('none', { limit: 5 })).toEqual([]);
      });

      it('filters by payload fields (dotted, scalar, exact) and by result verdict or posture', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'p1', status: 'failed', payload: { scope: 'projects/app', retries: 3, strict: true, deep: { lane: 'qa' } }, result: { verdict: 'failed' } });
        await insert(store, { runId: 'p2', status: 'success', payload: { scope: 'projects/app', retries: 2.5, strict: false }, result: { posture: 'failed' } });
        await insert(store, { runId: 'p3', status: 'success', payload: { scope: 'projects/other', retries: '3', deep: 'qa' }, result: { verdict: 'passed' } });
        await insert(store, { runId: 'p4', payload: { scope: { nested: 'projects/app' }, deep: { lane: ['qa'] } }, result: 'failed' });
        const ids = async (query: Parameters<StateStore['listRuns']>[0]) => (await store.listRuns(query)).items.map((r) => r.runId);
        expect(await ids({ payload: { scope: 'projects/app' } })).toEqual(['p2', 'p1']);
        expect(await ids({ payload: { 'deep.lane': 'qa' } })).toEqual(['p1']);
        expect(await ids({ payload: { deep: 'qa' } })).toEqual(['p3']);
        // Query text matches a number field numerically and a string field as text.
        expect(await ids({ payload: { retries: '3' } })).toEqual(['p3', 'p1']);
        expect(await ids({ payload: { retries: '3.0' } })).toEqual(['p1']);
        expect(await ids({ payload: { retries: 2.5 } })).toEqual(['p2']);
        expect(await ids({ payload: { strict: 'true' } })).toEqual(['p1']);
        expect(await ids({ payload: { strict: false } })).toEqual(['p2']);
        expect(await ids({ payload: { scope: 'projects/app', retries: '3' } })).toEqual(['p1']);
        expect(await ids({ payload: { missing: 'x' } })).toEqual([]);
        expect(await ids({ verdict: 'failed' })).toEqual(['p2', 'p1']);
        expect(await ids({ verdict: 'failed', status: 'failed' })).toEqual(['p1']);
        expect(await ids({ verdict: 'passed', payload: { scope: 'projects/other' } })).toEqual(['p3']);
        const page = await store.listRuns({ verdict: 'failed', limit: 1 });
        expect({ ids: page.items.map((r) => r.runId), total: page.total }).toEqual({ ids: ['p2'], total: 2 });
      });

      it('pages with limit (default 50) and offset, total counting every match', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 60; i++) await insert(store, { runId: `run-${String(i).padStart(2, '0')}` });
        const first = await store.listRuns({});
        expect(first.total).toBe(60);
        expect(first.items).toHaveLength(50);
        expect(first.items[0]!.runId).toBe('run-59');
        const page = await store.listRuns({ limit: 5, offset: 10 });
        expect(page.items.map((r) => r.runId)).toEqual(['run-49', 'run-48', 'run-47', 'run-46', 'run-45']);
        expect(page.total).toBe(60);
        const tail = await store.listRuns({ limit: 5, offset: 58, order: 'oldest' });
        expect(tail.items.map((r) => r.runId)).toEqual(['run-58', 'run-59']);
        expect((await store.listRuns({ offset: 100 })).items).toEqual([]);
      });

      it('pages by cursor (afterSeq) in both orders, stable while new runs arrive', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 10; i++) await insert(store, { runId: `c-${i}`, type: i % 2 === 0 ? 'doc-sync' : 'rss-sweep' });
        const first = await store.listRuns({ limit: 3 });
        expect(first.items.map((r) => r.runId)).toEqual(['c-9', 'c-8', 'c-7']);
        // A run admitted between pages must not shift the next page.
        await insert(store, { runId: 'c-new', type: 'rss-sweep' });
        const second = await store.listRuns({ limit: 3, afterSeq: first.items[2]!.seq });
        expect(second.items.map((r) => r.runId)).toEqual(['c-6', 'c-5', 'c-4']);
        expect(second.total).toBe(11);
        const oldest = await store.listRuns({ limit: 2, order: 'oldest', afterSeq: first.items[2]!.seq });
        expect(oldest.items.map((r) => r.runId)).toEqual(['c-8', 'c-9']);
        const filtered = await store.listRuns({ type: 'doc-sync', limit: 10, afterSeq: first.items[1]!.seq });
        expect(filtered.items.map((r) => r.runId)).toEqual(['c-6', 'c-4', 'c-2', 'c-0']);
        expect(filtered.total).toBe(5);
      });

      it('filters by creation time, from inclusive and to exclusive, with total and cursor paging', async () => {
        const { store } = await openStore();
        const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
        for (let i = 0; i < 6; i++) {
          await insert(store, { runId: `t-${i}`, createdAt: at(i), type: i % 2 === 0 ? 'doc-sync' : 'rss-sweep', status: i < 3 ? 'success' : 'pending' });
        }
        await insert(store, { runId: 't-internal', createdAt: at(2), type: 'heartbeat', internal: true });
        const ids = async (query: Parameters<StateStore['listRuns']>[0]) => {
          const { items, total } = await store.listRuns(query);
          return { ids: items.map((r) => r.runId), total };
        };
        expect(await ids({ createdFrom: at(2) })).toEqual({ ids: ['t-5', 't-4', 't-3', 't-2'], total: 4 });
        expect(await ids({ createdTo: at(2) })).toEqual({ ids: ['t-1', 't-0'], total: 2 });
        expect(await ids({ createdFrom: at(1), createdTo: at(4) })).toEqual({ ids: ['t-3', 't-2', 't-1'], total: 3 });
        expect(await ids({ createdFrom: at(1), createdTo: at(4), includeInternal: true, order: 'oldest' })).toEqual({
          ids: ['t-1', 't-2', 't-3', 't-internal'], // listing order is admission (seq), not createdAt
          total: 4,
        });
        // Combined with the other filters.
        expect(await ids({ createdFrom: at(1), createdTo: at(5), status: 'success' })).toEqual({ ids: ['t-2', 't-1'], total: 2 });
        expect(await ids({ createdFrom: at(1), type: 'doc-sync' })).toEqual({ ids: ['t-4', 't-2'], total: 2 });
        // Bounds in another offset or precision name the same instants.
        expect(await ids({ createdFrom: '2026-03-01T12:01:00+02:00', createdTo: '2026-03-01T10:03:00.000000Z' })).toEqual({ ids: ['t-2', 't-1'], total: 2 });
        // Between two runs' instants, and an empty range.
        expect(await ids({ createdFrom: '2026-03-01T10:01:30.000Z', createdTo: '2026-03-01T10:03:00.001Z' })).toEqual({ ids: ['t-3', 't-2'], total: 2 });
        expect(await ids({ createdFrom: at(4), createdTo: at(4) })).toEqual({ ids: [], total: 0 });
        // Cursor pages stay inside the range; total counts the whole range, not the page.
        const first = await store.listRuns({ createdFrom: at(1), createdTo: at(6), limit: 2 });
        expect(first.items.map((r) => r.runId)).toEqual(['t-5', 't-4']);
        expect(first.total).toBe(5);
        const second = await store.listRuns({ createdFrom: at(1), createdTo: at(6), limit: 2, afterSeq: first.items[1]!.seq });
        expect(second.items.map((r) => r.runId)).toEqual(['t-3', 't-2']);
        expect(second.total).toBe(5);
        const last = await store.listRuns({ createdFrom: at(1), createdTo: at(6), limit: 2, afterSeq: second.items[1]!.seq });
        expect(last.items.map((r) => r.runId)).toEqual(['t-1']);
      });

      it('counts by status, by type, ready and held', async () => {
        const { store } = await openStore();
        await seed(store);
        await insert(store, { runId: 'r6', type: 'doc-sync', status: 'cancelled', queueState: null });
        const visible = await store.countRuns();
        expect(visible.total).toBe(5);
        expect(visible.byStatus).toEqual({ waiting: 0, pending: 2, running: 1, success: 1, failed: 0, retrying: 0, cancelled: 1, skipped: 0 });
        expect(visible.byType['doc-sync']).toEqual({ waiting: 0, pending: 1, running: 1, success: 1, failed: 0, retrying: 0, cancelled: 1, skipped: 0 });
        expect(visible.byType.heartbeat).toBeUndefined();
        expect(visible.ready).toBe(1);
        expect(visible.held).toBe(1);
        const all = await store.countRuns(true);
        expect(all.total).toBe(6);
        expect(all.byStatus.success).toBe(2);
        expect(all.byType.heartbeat?.success).toBe(1);
        expect(all.settledByApprovalByType).toEqual({});
      });

      it('counts per type the held runs a decision settled without their lane running', async () => {
        const { store } = await openStore();
        const decided = (status: 'approved' | 'rejected') => ({ ...makeRun().approval, required: true, status });
        await insert(store, { runId: 'a-rejected', type: 'agent-deploy', status: 'failed', queueState: null, failureReason: 'approval_rejected', approval: decided('rejected') });
        await insert(store, { runId: 'a-closed', type: 'agent-deploy', status: 'success', queueState: null, startedAt: null, approval: decided('approved') });
        await insert(store, { runId: 'a-replay', type: 'agent-deploy', status: 'success', queueState: null, startedAt: '2026-01-01T00:00:01.000Z' });
        await insert(store, { runId: 'a-failed', type: 'agent-deploy', status: 'failed', queueState: null, failureReason: 'worker-logical-failure' });
        await insert(store, { runId: 'd-failed', type: 'doc-sync', status: 'failed', queueState: null, failureReason: 'timeout' });
        const counts = await store.countRuns();
        expect(counts.byType['agent-deploy']).toMatchObject({ success: 2, failed: 2 });
        expect(counts.settledByApprovalByType).toEqual({ 'agent-deploy': { rejected: 1, closedForReplay: 1 } });
      });
    });

    describe('renewLeases (when the driver has it)', () => {
      it("extends the leases of the owner's running attempts named, by one write, and nothing else", async () => {
        const { store, dir } = await openStore();
        if (!store.renewLeases) return;
        await insert(store, markRunning(makeRun({ runId: 'mine' }), 'instance-a'));
        await insert(store, markRunning(makeRun({ runId: 'taken' }), 'instance-b'));
        await insert(store, markRunning(makeRun({ runId: 'later', attempt: 2 }), 'instance-a'));
        await insert(store, { runId: 'done', status: 'success', queueState: null, claim: null });
        const before = await store.getRun('mine');
        const until = '2026-01-01T00:09:00.000Z';

        const renewed = await store.renewLeases('instance-a', ['mine', 'taken', 'later', 'done', 'absent'].map((runId) => ({ runId, attempt: 1 })), until);
        expect(renewed).toEqual(['mine']);
        const after = await reopen(store, dir);
        const mine = await after.getRun('mine');
        expect(mine?.claim).toEqual({ ownerId: 'instance-a', leaseUntil: until });
        // Nothing else of the record moved, and no event was appended.
        expect({ ...mine, claim: null }).toEqual({ ...before, claim: null });
        expect((await after.getRun('taken'))?.claim?.leaseUntil).toBe('2026-01-01T00:05:00.000Z');
        expect((await after.getRun('later'))?.claim?.leaseUntil).toBe('2026-01-01T00:05:00.000Z');
        expect(await after.renewLeases!('instance-a', [], until)).toEqual([]);
      });
    });

    describe('cancelRequests', () => {
      it('names the running runs among those asked whose cancel was requested, with their attempt and owner, and nothing else', async () => {
        const { store } = await openStore();
        const cancellation = { requestedAt: '2026-01-01T00:00:00.000Z', requestedBy: 'ops', reason: null, completedAt: null, signal: null };
        await insert(store, markRunning(makeRun({ runId: 'asked', attempt: 2 }), 'instance-a'));
        await store.mutateRun('asked', (run) => (run ? { ...run, cancellation } : null));
        await insert(store, markRunning(makeRun({ runId: 'elsewhere' }), 'instance-b'));
        await store.mutateRun('elsewhere', (run) => (run ? { ...run, cancellation } : null));
        await insert(store, markRunning(makeRun({ runId: 'running' }), 'instance-a'));
        await insert(store, { runId: 'queued', cancellation: null });
        await insert(store, { runId: 'finished', status: 'cancelled', queueState: null, cancellation: { ...cancellation, completedAt: '2026-01-01T00:00:01.000Z' } });
        await insert(store, { runId: 'not-asked' });
        await store.mutateRun('not-asked', (run) => (run ? { ...markRunning(run, 'instance-a'), cancellation } : null));

        const requests = await store.cancelRequests(['asked', 'elsewhere', 'running', 'queued', 'finished', 'absent']);
        expect(requests.sort((a, b) => a.runId.localeCompare(b.runId))).toEqual([
          { runId: 'asked', attempt: 2, ownerId: 'instance-a' },
          { runId: 'elsewhere', attempt: 1, ownerId: 'instance-b' },
        ]);
        expect(await store.cancelRequests([])).toEqual([]);
      });
    });

    describe('pruneRuns', () => {
      it('prunes skipped flow steps as finished runs and keeps waiting ones', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'w', status: 'waiting', queueState: 'waiting', flowStep: { flowId: 'f', key: 'w' } });
        await insert(store, { runId: 's', status: 'skipped', queueState: null, flowStep: { flowId: 'f', key: 's', skipped: { policy: 'fail', reason: 'r' } } });
        expect(await store.pruneRuns(0)).toBe(1);
        expect(await store.getRun('s')).toBeNull();
        expect(await store.getRun('w')).not.toBeNull();
      });

      it('deletes the oldest finished runs beyond keep and never unfinished ones', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'old-pending', status: 'pending' });
        await insert(store, { runId: 'old-success', status: 'success', queueState: null });
        await insert(store, { runId: 'old-running', status: 'running', queueState: null });
        await insert(store, { runId: 'old-failed', status: 'failed', queueState: null });
        await insert(store, { runId: 'old-cancelled', status: 'cancelled', queueState: null });
        await insert(store, { runId: 'old-retrying', status: 'retrying' });
        await insert(store, { runId: 'new-success', status: 'success', queueState: null });
        await insert(store, { runId: 'new-pending', status: 'pending' });

        // success, failed and cancelled are finished: each may go.
        expect(await store.pruneRuns(5)).toBe(3);
        expect(await store.getRun('old-success')).toBeNull();
        expect(await store.getRun('old-failed')).toBeNull();
        expect(await store.getRun('old-cancelled')).toBeNull();
        expect(await store.getRun('new-success')).not.toBeNull();

        // Fewer finished runs than the excess: only those go, unfinished runs stay whatever keep says.
        expect(await store.pruneRuns(0)).toBe(1);
        const left = (await store.listRuns({ order: 'oldest' })).items.map((r) => r.runId);
        expect(left).toEqual(['old-pending', 'old-running', 'old-retrying', 'new-pending']);
        expect(await store.pruneRuns(10)).toBe(0);
      });

      it('never reuses the seq of a pruned run', async () => {
        const { store } = await openStore();
        const a = await insert(store, { runId: 'a', status: 'success', queueState: null });
        const b = await insert(store, { runId: 'b', status: 'success', queueState: null });
        expect(await store.pruneRuns(0)).toBe(2);
        const c = await insert(store, { runId: 'c' });
        expect(c.seq).toBeGreaterThan(b.seq);
        expect(c.seq).toBeGreaterThan(a.seq);
      });
    });

    describe('OrchestratorState', () => {
      it('starts empty and applies mutations atomically', async () => {
        const { store } = await openStore();
        expect(await store.getState()).toEqual({
          lastStartedAt: null,
          tasksProcessed: 0,
          taskHistory: [],
          docsIndexed: [],
          communityResponses: [],
          rssDrafts: [],
          deployedAgents: [],
        });
        await Promise.all(
          Array.from({ length: 50 }, () => store.mutateState((s) => ({ ...s, tasksProcessed: s.tasksProcessed + 1 }))),
        );
        expect((await store.getState()).tasksProcessed).toBe(50);
        const unchanged = await store.mutateState(() => null);
        expect(unchanged.tasksProcessed).toBe(50);
      });

      it('changing the returned state never changes the stored one (it is a copy or frozen)', async () => {
        const { store } = await openStore();
        await store.recordTask({ type: 'doc-sync', status: 'completed', timestamp: '2026-01-01T00:00:00Z', durationMs: 1 });
        const state = await store.getState();
        try {
          (state as { tasksProcessed: number }).tasksProcessed = 99;
          (state.taskHistory as unknown[]).push({ type: 'forged' });
        } catch {
          // a frozen document refuses the change: that is one of the two allowed answers
        }
        const again = await store.getState();
        expect(again.tasksProcessed).toBe(1);
        expect(again.taskHistory).toHaveLength(1);
      });

      it('records finished tasks without touching the rest of the document, bounded to 50, across reopen', async () => {
        const { store, dir } = await openStore();
        await store.mutateState((s) => ({ ...s, docsIndexed: ['a.md'], notes: 'kept' }));
        for (let i = 0; i < 55; i++) {
          await store.recordTask({ type: 'doc-sync', status: i % 5 === 0 ? 'error' : 'completed', timestamp: `2026-01-01T00:00:${String(i).padStart(2, '0')}Z`, durationMs: i, ...(i % 5 === 0 ? { error: `e${i}` } : {}) });
        }
        const check = (state: Awaited<ReturnType<StateStore['getState']>>) => {
          expect(state.tasksProcessed).toBe(55);
          expect(state.taskHistory).toHaveLength(50);
          expect(state.taskHistory[0]!.durationMs).toBe(5);
          expect(state.taskHistory[49]).toMatchObject({ durationMs: 54, status: 'completed' });
          expect(state.taskHistory[0]).toMatchObject({ status: 'error', error: 'e5' });
          expect(state.docsIndexed).toEqual(['a.md']);
          expect(state.notes).toBe('kept');
        };
        check(await store.getState());
        const reopened = await reopen(store, dir);
        check(await reopened.getState());
        await reopened.recordTask({ type: 'heartbeat', status: 'completed', timestamp: '2026-01-02T00:00:00Z', durationMs: 1 });
        expect((await reopened.getState()).tasksProcessed).toBe(56);
      });

      it('keeps only the newest entries of the bounded arrays', async () => {
        const { store } = await openStore();
        const task = (i: number): TaskRecord => ({
          type: 'heartbeat',
          status: 'completed',
          timestamp: `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.000Z`,
          durationMs: i,
        });
        const after = await store.mutateState((s) => ({
          ...s,
          taskHistory: Array.from({ length: 60 }, (_, i) => task(i)),
          communityResponses: Array.from({ length: 130 }, (_, i) => ({
            timestamp: 't',
            postId: `p${i}`,
            postTitle: 'title',
            subcommunity: 'sub',
            draftResponse: 'draft',
            confidence: 0.5,
          })),
          rssDrafts: Array.from({ length: 250 }, (_, i) => ({
            timestamp: 't',
            feedUrl: 'https://feed.example/rss',
            itemTitle: `item ${i}`,
            itemUrl: `https://feed.example/${i}`,
            publishedAt: 't',
            relevanceScore: i % 100,
            urgency: 'low' as const,
          })),
          docsIndexed: Array.from({ length: 300 }, (_, i) => `docs/${i}.md`),
          notes: 'kept',
        }));
        expect(after.taskHistory).toHaveLength(50);
        expect(after.taskHistory[0]!.durationMs).toBe(10);
        expect(after.communityResponses).toHaveLength(100);
        expect(after.communityResponses[0]!.postId).toBe('p30');
        expect(after.rssDrafts).toHaveLength(200);
        expect(after.rssDrafts.at(-1)!.itemTitle).toBe('item 249');
        expect(after.docsIndexed).toHaveLength(300);
        expect(await store.getState()).toEqual(after);
        const cleared = await store.mutateState((s) => {
          const next = { ...s };
          delete next.notes;
          return next;
        });
        expect(cleared.notes).toBeUndefined();
        expect((await store.getState()).notes).toBeUndefined();
      });
    });

    describe('append collections', () => {
      it('keeps the newest records and lists newest first with paging', async () => {
        const { store } = await openStore();
        for (let i = 0; i < 8; i++) await store.append('telemetry', { event: 'queued', n: i }, 5);
        await store.append('milestones', { type: 'startup' }, 10);
        const all = await store.listAppended('telemetry', { limit: 10 });
        expect(all.total).toBe(5);
        expect(all.items.map((r) => r.n)).toEqual([7, 6, 5, 4, 3]);
        const page = await store.listAppended('telemetry', { limit: 2, offset: 1 });
        expect(page.items.map((r) => r.n)).toEqual([6, 5]);
        expect(page.total).toBe(5);
        expect((await store.listAppended('milestones', { limit: 10 })).items).toEqual([{ type: 'startup' }]);
      });

      it('mutateRunAndAppend (when the driver has it) stores the run and its appends together, and none for an unchanged run', async () => {
        const { store, dir } = await openStore();
        if (!store.mutateRunAndAppend) return;
        const seen: { before: unknown; after: string | undefined }[] = [];
        const appendsFor = (r: { before: RunRecord | null; after: RunRecord | null }) => {
          seen.push({ before: r.before, after: r.after?.runId });
          return [
            { collection: 'telemetry' as const, record: { event: 'accepted', runId: r.after!.runId }, keep: 10 },
            { collection: 'telemetry' as const, record: { event: 'queued', runId: r.after!.runId }, keep: 10 },
          ];
        };
        const first = await store.mutateRunAndAppend('with-telemetry', insertIfAbsent(makeRun({ runId: 'with-telemetry' })), appendsFor);
        expect(first.changed).toBe(true);
        const again = await store.mutateRunAndAppend('with-telemetry', insertIfAbsent(makeRun({ runId: 'with-telemetry' })), appendsFor);
        expect(again.changed).toBe(false);
        // A driver may ask before it knows the run is absent (the answer is then used only if it is).
        expect(seen.length).toBeGreaterThanOrEqual(1);
        expect(seen.every((s) => s.before === null && s.after === 'with-telemetry')).toBe(true);
        const reopened = await reopen(store, dir);
        expect((await reopened.getRun('with-telemetry'))?.runId).toBe('with-telemetry');
        expect((await reopened.listAppended('telemetry', { limit: 10 })).items).toEqual([
          { event: 'queued', runId: 'with-telemetry' },
          { event: 'accepted', runId: 'with-telemetry' },
        ]);
      });

      it('mutateRunAndAppend (when the driver has it) trims the appends of one write together, keeping the newest in order', async () => {
        const { store } = await openStore();
        if (!store.mutateRunAndAppend) return;
        for (let i = 0; i < 3; i += 1) await store.append('telemetry', { n: i }, 4);
        await store.mutateRunAndAppend('trimmed', insertIfAbsent(makeRun({ runId: 'trimmed' })), () => [
          { collection: 'telemetry' as const, record: { n: 3 }, keep: 4 },
          { collection: 'milestones' as const, record: { m: 0 }, keep: 4 },
          { collection: 'telemetry' as const, record: { n: 4 }, keep: 4 },
          { collection: 'telemetry' as const, record: { n: 5 }, keep: 4 },
        ]);
        const telemetry = await store.listAppended('telemetry', { limit: 10 });
        expect(telemetry.total).toBe(4);
        expect(telemetry.items).toEqual([{ n: 5 }, { n: 4 }, { n: 3 }, { n: 2 }]);
        expect((await store.listAppended('milestones', { limit: 10 })).items).toEqual([{ m: 0 }]);
      });

      it('keeps each record exactly as appended', async () => {
        const { store } = await openStore();
        const record = { event: 'accepted', runId: 'r', nested: { list: [1, 'two', null] }, flag: false };
        await Promise.all(Array.from({ length: 20 }, (_, n) => store.append('telemetry', { ...record, n }, 100)));
        const { items, total } = await store.listAppended('telemetry', { limit: 1 });
        expect(total).toBe(20);
        // Concurrent appends to a shared store land in commit order, not call order.
        if (!shared) expect(items).toEqual([{ ...record, n: 19 }]);
        const all = (await store.listAppended('telemetry', { limit: 20 })).items;
        expect(all.map((r) => r.n).sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 20 }, (_, n) => n));
        expect(all.map(({ n: _n, ...rest }) => rest)).toEqual(Array.from({ length: 20 }, () => record));
      });
    });

    describe('documents', () => {
      it('puts, replaces, gets and lists documents per collection', async () => {
        const { store } = await openStore();
        await store.putDoc('incidents', 'b', { id: 'b', severity: 'warning' });
        await store.putDoc('incidents', 'a', { id: 'a', severity: 'info' });
        await store.putDoc('incidents', 'b', { id: 'b', severity: 'critical' });
        await store.putDoc('memory', 'a', { id: 'a', text: 'other collection' });
        expect(await store.getDoc('incidents', 'b')).toEqual({ id: 'b', severity: 'critical' });
        expect(await store.getDoc('incidents', 'missing')).toBeNull();
        expect(await store.listDocs('incidents')).toEqual([
          { id: 'a', severity: 'info' },
          { id: 'b', severity: 'critical' },
        ]);
        expect(await store.listDocs('nothing-here')).toEqual([]);
        expect(await store.listDocEntries('incidents')).toEqual([
          { id: 'a', doc: { id: 'a', severity: 'info' } },
          { id: 'b', doc: { id: 'b', severity: 'critical' } },
        ]);
        expect(await store.listDocEntries('nothing-here')).toEqual([]);
      });

      it('inserts a document only when its id is free: one of many concurrent inserts wins, and it is durable', async () => {
        const { store, dir } = await openStore();
        const attempts = await Promise.all([1, 2, 3, 4, 5].map((n) => store.insertDoc('schedules', 'nightly', { id: 'nightly', by: n })));
        expect(attempts.filter(Boolean)).toHaveLength(1);
        const winner = attempts.indexOf(true) + 1;
        expect(await store.getDoc('schedules', 'nightly')).toEqual({ id: 'nightly', by: winner });
        expect(await store.insertDoc('schedules', 'nightly', { id: 'nightly', by: 9 })).toBe(false);
        expect(await store.insertDoc('schedules', 'weekly', { id: 'weekly' })).toBe(true);
        const reopened = await reopen(store, dir);
        expect(await reopened.listDocEntries('schedules')).toEqual([
          { id: 'nightly', doc: { id: 'nightly', by: winner } },
          { id: 'weekly', doc: { id: 'weekly' } },
        ]);
      });

      it('deletes one document, durably, and an absent one without complaint', async () => {
        const { store, dir } = await openStore();
        await store.putDoc('runLogs', 'a', { id: 'a' });
        await store.putDoc('runLogs', 'b', { id: 'b' });
        await store.putDoc('other', 'a', { id: 'a', kept: true });
        await store.deleteDoc('runLogs', 'a');
        await store.deleteDoc('runLogs', 'never-there');
        await store.deleteDoc('no-such-collection', 'a');
        expect(await store.getDoc('runLogs', 'a')).toBeNull();
        expect(await store.listDocEntries('runLogs')).toEqual([{ id: 'b', doc: { id: 'b' } }]);
        expect(await store.getDoc('other', 'a')).toEqual({ id: 'a', kept: true });

        await store.deleteDoc('runLogs', 'b');
        // An emptied collection is counted by no driver.
        expect(Object.keys((await store.health()).collections)).not.toContain('docs:runLogs');
        await store.putDoc('runLogs', 'c', { id: 'c' });
        const reopened = await reopen(store, dir);
        expect(await reopened.listDocEntries('runLogs')).toEqual([{ id: 'c', doc: { id: 'c' } }]);
        expect(await reopened.getDoc('other', 'a')).toEqual({ id: 'a', kept: true });
      });

      it('deletes one document durably, leaving its neighbours and other collections, and a missing one is no error', async () => {
        const { store, dir } = await openStore();
        await store.putDoc('schedules', 'a', { id: 'a' });
        await store.putDoc('schedules', 'b', { id: 'b' });
        await store.putDoc('memory', 'a', { id: 'a', text: 'other collection' });
        await store.deleteDoc('schedules', 'a');
        await store.deleteDoc('schedules', 'never-there');
        await store.deleteDoc('nothing-here', 'x');
        expect(await store.getDoc('schedules', 'a')).toBeNull();
        expect(await store.listDocEntries('schedules')).toEqual([{ id: 'b', doc: { id: 'b' } }]);
        expect(await store.getDoc('memory', 'a')).toEqual({ id: 'a', text: 'other collection' });

        // Gone after a reopen too (the file driver replays its journal), and a put brings it back.
        const reopened = await reopen(store, dir);
        expect(await reopened.getDoc('schedules', 'a')).toBeNull();
        expect(await reopened.listDocs('schedules')).toEqual([{ id: 'b' }]);
        await reopened.deleteDoc('schedules', 'b');
        expect((await reopened.health()).collections['docs:schedules'] ?? 0).toBe(0);
        await reopened.putDoc('schedules', 'a', { id: 'a', again: true });
        expect(await reopened.getDoc('schedules', 'a')).toEqual({ id: 'a', again: true });
      });
    });

    describe('lifecycle', () => {
      it('keeps every acknowledged write across close and reopen', async () => {
        const { store, dir } = await openStore();
        await Promise.all(Array.from({ length: 30 }, (_, i) => insert(store, { runId: `run-${i}` })));
        await store.claimNextRun({ typeLimits: {} }, (r) => markRunning(r));
        await store.mutateRun('run-5', (cur) => ({ ...cur!, status: 'success', queueState: null }));
        await store.mutateState((s) => ({ ...s, tasksProcessed: 7, lastStartedAt: '2026-01-01T00:00:00.000Z' }));
        await store.append('telemetry', { event: 'accepted' }, 10);
        await store.putDoc('incidents', 'i1', { id: 'i1' });
        const runsBefore = await store.listRuns({ limit: 100 });
        const countsBefore = await store.countRuns(true);

        const reopened = await reopen(store, dir);
        expect(await reopened.listRuns({ limit: 100 })).toEqual(runsBefore);
        expect(await reopened.countRuns(true)).toEqual(countsBefore);
        expect(await reopened.getState()).toMatchObject({ tasksProcessed: 7, lastStartedAt: '2026-01-01T00:00:00.000Z' });
        expect((await reopened.listAppended('telemetry', { limit: 10 })).items).toEqual([{ event: 'accepted' }]);
        expect(await reopened.getDoc('incidents', 'i1')).toEqual({ id: 'i1' });

        // The queue continues in admission order (seq: concurrent admissions to a shared store are
        // numbered in the order they commit, not the order they were called), and new runs come after the old ones.
        const oldestReady = runsBefore.items.filter((r) => r.queueState === 'ready').sort((a, b) => a.seq - b.seq)[0]!;
        if (!shared) expect(oldestReady.runId).toBe('run-1');
        const next = await reopened.claimNextRun({ typeLimits: {} }, (r) => markRunning(r));
        expect(next?.runId).toBe(oldestReady.runId);
        const later = await insert(reopened, { runId: 'later' });
        expect(later.seq).toBeGreaterThan(Math.max(...runsBefore.items.map((r) => r.seq)));
      });

      it('reports health with its target and collection counts', async () => {
        const { store } = await openStore();
        await insert(store, { runId: 'r' });
        await store.append('milestones', { type: 'startup' }, 10);
        await store.putDoc('incidents', 'i1', { id: 'i1' });
        const health = await store.health();
        expect(health.status).toBe('ok');
        // Health is shown to clients: the target by name, never the server's absolute path.
        expect(health.target).toBe(shownTarget(store.target));
        expect(health.target.includes('/tmp/')).toBe(false);
        expect(health.collections).toMatchObject({ runs: 1, milestones: 1, telemetry: 0, 'docs:incidents': 1 });
        expect(store.exclusive).toBe(!shared);
        // Without counts (the periodic sweep's check): the same status and target; a driver
        // whose counts walk tables leaves them out, one that has them for free may give them.
        const light = await store.health({ counts: false });
        expect({ status: light.status, target: light.target }).toEqual({ status: 'ok', target: health.target });
        if (store.kind === 'postgres') expect(light.collections).toEqual({});
        else expect(light.collections).toMatchObject({ runs: 1 });
      });

      // Registered only where it applies: a shared store is opened by several instances on purpose.
      if (!shared) it('refuses a second open of the same target while the first is open', async () => {
        const { dir } = await openStore();
        const second = makeStore(dir);
        await expect(second.open()).rejects.toThrow(/already open|in use/);
      });

      if (shared) it('lets a second instance open the same target and share its runs, claims and state', async () => {
        const { store: first, dir } = await openStore();
        const { store: second } = await openStore(dir);
        await insert(first, { runId: 'from-first' });
        const results = await Promise.all([
          first.mutateRun('both', insertIfAbsent(makeRun({ runId: 'both', requestedBy: 'first' }))),
          second.mutateRun('both', insertIfAbsent(makeRun({ runId: 'both', requestedBy: 'second' }))),
        ]);
        expect(results.filter((r) => r.changed)).toHaveLength(1);
        const claims = await Promise.all([
          first.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'first')),
          second.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'second')),
          second.claimNextRun({ typeLimits: {} }, (r) => markRunning(r, 'second')),
        ]);
        expect(claims.filter((c) => c !== null).map((c) => c!.runId).sort()).toEqual(['both', 'from-first']);
        await first.recordTask({ type: 'doc-sync', status: 'completed', timestamp: '2026-01-01T00:00:00Z', durationMs: 1 });
        expect((await second.getState()).tasksProcessed).toBe(1);
      });

      it('refuses writes once closed, and flushes writes still in flight at close', async () => {
        const { store, dir } = await openStore();
        const pending = Array.from({ length: 25 }, (_, i) => insert(store, { runId: `late-${i}` }));
        // A second close waits for the same close rather than returning early.
        await Promise.all([store.close(), store.close()]);
        expect((await store.health()).status).toBe('down');
        await Promise.all(pending);
        await expect(store.mutateRun('x', () => null)).rejects.toThrow(/not open/);
        const reopened = (await openStore(dir)).store;
        expect((await reopened.listRuns({ limit: 100 })).total).toBe(25);
      });
    });
  });
}
