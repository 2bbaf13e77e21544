import { describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { coordinationConformance } from './conformance.js';

coordinationConformance('MemoryCoordination conformance', {
  kind: 'memory',
  create: async () => new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1024 * 1024 }),
  createWithTagRetention: async (ms) => new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1024 * 1024, tagRetentionMs: ms }),
  holdsTag: async (coordination, tag) => (coordination as MemoryCoordination).holdsTag(tag),
});

describe('MemoryCoordination cache tags', () => {
  it('holds the tags of recent reads only: per-run tags are dropped after their retention', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 4096, tagRetentionMs: 100 });
    try {
      const tags = Array.from({ length: 1000 }, (_, i) => `run:r-${i}`);
      await coordination.tagVersions(tags);
      await coordination.bumpTags(tags);
      await coordination.tagVersions(['runs']);
      expect(coordination.tagCount).toBe(1001);
      await new Promise((resolve) => setTimeout(resolve, 200));
      coordination.sweepExpired();
      expect(coordination.tagCount).toBe(0);
    } finally {
      await coordination.close();
    }
  });

  it('holds no tag for writes nobody read: 1,000 runs written leave the tag count where it was', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 4096 });
    try {
      await coordination.tagVersions(['runs']);
      for (let i = 0; i < 1000; i++) await coordination.bumpTags(['runs', `run:r-${i}`]);
      expect(coordination.tagCount).toBe(1);
    } finally {
      await coordination.close();
    }
  });
});

describe('MemoryCoordination cache bounds', () => {
  it('evicts the least recently used entry beyond the entry bound', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 2, cacheMaxBytes: 1024 * 1024 });
    await coordination.cacheSet('a', Buffer.from('1'), 60);
    await coordination.cacheSet('b', Buffer.from('2'), 60);
    await coordination.cacheGet('a');
    await coordination.cacheSet('c', Buffer.from('3'), 60);
    expect((await coordination.cacheGet('a'))?.toString()).toBe('1');
    expect(await coordination.cacheGet('b')).toBeNull();
    expect((await coordination.cacheGet('c'))?.toString()).toBe('3');
    await coordination.close();
  });

  it('keeps the total size within the byte bound and refuses an entry larger than the bound', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 2048 });
    const kib = Buffer.alloc(1000, 'x');
    await coordination.cacheSet('one', kib, 60);
    await coordination.cacheSet('two', kib, 60);
    await coordination.cacheSet('three', kib, 60);
    const kept = await Promise.all(['one', 'two', 'three'].map((k) => coordination.cacheGet(k)));
    expect(kept.filter((v) => v !== null).length).toBe(2);
    expect(kept[0]).toBeNull();
    await coordination.cacheSet('huge', Buffer.alloc(5000, 'y'), 60);
    expect(await coordination.cacheGet('huge')).toBeNull();
    await coordination.close();
  });

  it('reports the status it was given when standing in for an unreachable kv store', async () => {
    const coordination = new MemoryCoordination({
      cacheMaxEntries: 10,
      cacheMaxBytes: 4096,
      status: { store: 'memory', status: 'degraded', redisConfigured: true, redisReachable: false, detail: 'down' },
    });
    expect(await coordination.status()).toEqual({
      store: 'memory',
      status: 'degraded',
      redisConfigured: true,
      redisReachable: false,
      detail: 'down',
    });
    await coordination.close();
  });
});
