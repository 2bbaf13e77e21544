import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Coordination } from '../../src/coordination/types.js';

export interface ConformanceTarget {
  /** Creates the driver under test; called once for the suite. */
  create(): Promise<Coordination>;
  /** Removes whatever the suite left behind (after close). */
  cleanup?(): Promise<void>;
  /** The same driver with cache tags forgotten `ms` after their last bump or creation. */
  createWithTagRetention?(ms: number): Promise<Coordination>;
  /** Whether the driver made by `create` holds `tag` right now, looked at from outside its API. */
  holdsTag(coordination: Coordination, tag: string): Promise<boolean>;
  kind: Coordination['kind'];
}

/**
 * The behaviour every Coordination driver promises. Names are made unique per run so the suite
 * can share a Redis with other runs.
 */
export function coordinationConformance(title: string, target: ConformanceTarget): void {
  describe(title, () => {
    let coordination: Coordination;
    const unique = (name: string) => `${name}-${randomUUID()}`;

    beforeAll(async () => {
      coordination = await target.create();
    });
    afterAll(async () => {
      await coordination?.close();
      await target.cleanup?.();
    });

    it('reports its kind and a healthy status', async () => {
      expect(coordination.kind).toBe(target.kind);
      const status = await coordination.status();
      expect(status.store).toBe(target.kind);
      expect(status.status).toBe('ok');
      expect(typeof status.detail).toBe('string');
    });

    describe('locks', () => {
      it('grants a free lock to one owner and refuses another', async () => {
        const lock = unique('lock');
        expect(await coordination.acquireLock(lock, 'a', 5_000)).toBe(true);
        expect(await coordination.acquireLock(lock, 'b', 5_000)).toBe(false);
        expect(await coordination.acquireLock(lock, 'a', 5_000)).toBe(true);
      });

      it('hands out growing fencing tokens: kept on re-acquire, larger for every new grant, none while held elsewhere', async () => {
        const lock = unique('fenced');
        const first = await coordination.acquireFencedLock(lock, 'a', 5_000);
        expect(first).toEqual(expect.any(Number));
        expect(await coordination.acquireFencedLock(lock, 'b', 5_000)).toBeNull();
        expect(await coordination.acquireFencedLock(lock, 'a', 5_000)).toBe(first);
        await coordination.releaseLock(lock, 'a');
        const second = await coordination.acquireFencedLock(lock, 'b', 5_000);
        expect(second).toBeGreaterThan(first!);
        // A lease that lapsed: the next owner's token is larger still, so the lapsed owner's writes can be refused.
        const lapsing = unique('fenced');
        const old = await coordination.acquireFencedLock(lapsing, 'a', 100);
        await sleep(250);
        expect(await coordination.acquireFencedLock(lapsing, 'b', 5_000)).toBeGreaterThan(old!);
      });

      it('releases only for the holder', async () => {
        const lock = unique('lock');
        await coordination.acquireLock(lock, 'a', 5_000);
        await coordination.releaseLock(lock, 'b');
        expect(await coordination.acquireLock(lock, 'b', 5_000)).toBe(false);
        await coordination.releaseLock(lock, 'a');
        expect(await coordination.acquireLock(lock, 'b', 5_000)).toBe(true);
      });

      it('renews only for the holder and keeps the lease alive past its first ttl', async () => {
        const lock = unique('lock');
        await coordination.acquireLock(lock, 'a', 150);
        expect(await coordination.renewLock(lock, 'b', 5_000)).toBe(false);
        expect(await coordination.renewLock(lock, 'a', 5_000)).toBe(true);
        await sleep(250);
        expect(await coordination.acquireLock(lock, 'b', 5_000)).toBe(false);
      });

      it('lets another owner take an expired lock, after which the old owner cannot renew', async () => {
        const lock = unique('lock');
        await coordination.acquireLock(lock, 'a', 100);
        await sleep(200);
        expect(await coordination.acquireLock(lock, 'b', 5_000)).toBe(true);
        expect(await coordination.renewLock(lock, 'a', 5_000)).toBe(false);
      });
    });

    describe('fixed windows', () => {
      it('counts within a window and reports when it ends', async () => {
        const key = unique('window');
        const before = Date.now();
        const first = await coordination.incrementWindow(key, 10_000);
        const second = await coordination.incrementWindow(key, 10_000);
        expect(first.count).toBe(1);
        expect(second.count).toBe(2);
        expect(first.resetAt).toBeGreaterThan(before + 9_000);
        expect(first.resetAt).toBeLessThanOrEqual(Date.now() + 10_000 + 50);
        expect(Math.abs(second.resetAt - first.resetAt)).toBeLessThan(100);
      });

      it('keeps separate counters per key', async () => {
        const a = unique('window');
        const b = unique('window');
        await coordination.incrementWindow(a, 10_000);
        await coordination.incrementWindow(a, 10_000);
        expect((await coordination.incrementWindow(b, 10_000)).count).toBe(1);
      });

      it('starts again at one once the window has passed', async () => {
        const key = unique('window');
        await coordination.incrementWindow(key, 100);
        await coordination.incrementWindow(key, 100);
        await sleep(200);
        expect((await coordination.incrementWindow(key, 100)).count).toBe(1);
      });
    });

    describe('daily budgets', () => {
      it('admits spend up to the limit, refuses what would exceed it, keeps days apart and concurrent spend exact', async () => {
        const budget = unique('llm-usd');
        expect(await coordination.spendDailyBudget(budget, '2026-05-01', 0.75, 2)).toEqual({ admitted: true, spent: 0.75 });
        expect(await coordination.spendDailyBudget(budget, '2026-05-01', 1.5, 2)).toEqual({ admitted: false, spent: 0.75 });
        expect(await coordination.spendDailyBudget(budget, '2026-05-01', 1.25, 2)).toEqual({ admitted: true, spent: 2 });
        expect(await coordination.spendDailyBudget(budget, '2026-05-02', 1, 2)).toEqual({ admitted: true, spent: 1 });
        const racing = unique('drafts');
        const results = await Promise.all(Array.from({ length: 30 }, () => coordination.spendDailyBudget(racing, '2026-05-01', 1, 10)));
        expect(results.filter((r) => r.admitted)).toHaveLength(10);
        expect(Math.max(...results.map((r) => r.spent))).toBe(10);
      });
    });

    describe('dedupe sets', () => {
      it('accepts a member once per set until it expires', async () => {
        const set = unique('set');
        expect(await coordination.addUnique(set, 'm1', 150)).toBe(true);
        expect(await coordination.addUnique(set, 'm1', 150)).toBe(false);
        expect(await coordination.addUnique(set, 'm2', 150)).toBe(true);
        expect(await coordination.addUnique(unique('set'), 'm1', 150)).toBe(true);
        await sleep(250);
        expect(await coordination.addUnique(set, 'm1', 150)).toBe(true);
      });
    });

    describe('response cache', () => {
      it('stores and returns values, and misses on unknown keys', async () => {
        const key = unique('cache');
        expect(await coordination.cacheGet(key)).toBeNull();
        const value = Buffer.from('{"a":"é"}\n\u0000 bytes');
        await coordination.cacheSet(key, value, 30);
        const stored = await coordination.cacheGet(key);
        expect(stored !== null && stored.equals(value)).toBe(true);
      });

      it('forgets a value after its ttl', async () => {
        const key = unique('cache');
        await coordination.cacheSet(key, Buffer.from('short-lived'), 1);
        expect((await coordination.cacheGet(key))?.toString()).toBe('short-lived');
        await sleep(1_150);
        expect(await coordination.cacheGet(key)).toBeNull();
      });

      it('does not store a value with a zero ttl', async () => {
        const key = unique('cache');
        await coordination.cacheSet(key, Buffer.from('never'), 0);
        expect(await coordination.cacheGet(key)).toBeNull();
      });
    });

    describe('cache tags', () => {
      it('reads a never-bumped tag at one steady generation and moves only bumped tags forward', async () => {
        const a = unique('tag');
        const b = unique('tag');
        const [a0, b0] = await coordination.tagVersions([a, b]);
        expect(await coordination.tagVersions([a, b])).toEqual([a0, b0]);
        await coordination.bumpTags([a]);
        const [a1, b1] = await coordination.tagVersions([a, b]);
        expect(a1).toBeGreaterThan(a0!);
        expect(b1).toBe(b0);
        await coordination.bumpTags([a, b]);
        const [a2, b2] = await coordination.tagVersions([a, b]);
        expect(a2).toBeGreaterThan(a1!);
        expect(b2).toBeGreaterThan(b0!);
      });

      it.skipIf(!target.createWithTagRetention)('never gives a forgotten tag a generation it held before', async () => {
        // An entry keyed by any earlier generation must stay unreachable after the tag expires and
        // comes back, whether it comes back through a read or through a bump.
        const short = await target.createWithTagRetention!(150);
        try {
          const readFirst = unique('tag');
          const bumpedFirst = unique('tag');
          const [r0] = await short.tagVersions([readFirst]);
          await short.bumpTags([readFirst, bumpedFirst]);
          const [r1, b1] = await short.tagVersions([readFirst, bumpedFirst]);
          await sleep(400);
          const [r2] = await short.tagVersions([readFirst]);
          await short.bumpTags([bumpedFirst]);
          const [b2] = await short.tagVersions([bumpedFirst]);
          expect(r2).not.toBe(r0);
          expect(r2).toBeGreaterThan(r1!);
          expect(b2).toBeGreaterThan(b1!);
          // Once re-created, the tag is steady again until its next bump.
          expect(await short.tagVersions([readFirst])).toEqual([r2]);
        } finally {
          await short.close();
        }
      });

      it('keeps no tag for a bump of a tag nobody read, and bumps a tag once read', async () => {
        // A run's own tag is bumped by every write of the run; kept only when somebody read it.
        const unread = unique('tag');
        const read = unique('tag');
        const [r0] = await coordination.tagVersions([read]);
        await coordination.bumpTags([unread, read]);
        expect(await target.holdsTag(coordination, unread)).toBe(false);
        expect(await target.holdsTag(coordination, read)).toBe(true);
        const [r1] = await coordination.tagVersions([read]);
        expect(r1).toBeGreaterThan(r0!);
        // Read after the bump, the tag is created then and steady until its next bump.
        const [u0] = await coordination.tagVersions([unread]);
        expect(await target.holdsTag(coordination, unread)).toBe(true);
        expect(await coordination.tagVersions([unread])).toEqual([u0]);
        await coordination.bumpTags([unread]);
        expect((await coordination.tagVersions([unread]))[0]).toBeGreaterThan(u0!);
      });

      it('answers an empty tag list with an empty list', async () => {
        expect(await coordination.tagVersions([])).toEqual([]);
        await coordination.bumpTags([]);
      });

      it('never repeats a generation under rapid bumps', async () => {
        const tag = unique('tag');
        const seen = new Set<number>();
        for (let i = 0; i < 20; i++) {
          await coordination.bumpTags([tag]);
          seen.add((await coordination.tagVersions([tag]))[0]!);
        }
        expect(seen.size).toBe(20);
      });
    });
  });
}
