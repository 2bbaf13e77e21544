import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freshShared } from '../../src/domain/fresh-share.js';
import { latestPackReader } from '../../src/knowledge/latest-pack.js';
import { LATEST_PACK_FILE, writePack, type PackDoc } from '../../src/knowledge/pack.js';
import { tempDir } from '../support/config.js';

const doc = (path: string, hash: string): PackDoc => ({ path, hash, title: path, summary: '', concepts: [] });

function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('latestPackReader', () => {
  it('reads null while there is no pack, then each new version the moment it is written', async () => {
    const dir = tempDir('latest-pack-');
    const latest = latestPackReader(dir);
    expect(await latest()).toBeNull();

    await writePack(dir, { generatedAt: '2026-01-01T00:00:00.000Z', indexerVersion: 't', docs: [doc('a.md', '1')] });
    expect((await latest())?.version).toBe(1);
    await writePack(dir, { generatedAt: '2026-01-01T00:00:01.000Z', indexerVersion: 't', docs: [doc('a.md', '2')] });
    const second = await latest();
    expect(second?.version).toBe(2);
    expect(second?.docs[0]?.hash).toBe('2');

    rmSync(join(dir, LATEST_PACK_FILE));
    expect(await latest()).toBeNull();
  });

  it('parses an unchanged file once and hands out one frozen pack', async () => {
    const dir = tempDir('latest-pack-');
    await writePack(dir, { generatedAt: '2026-01-01T00:00:00.000Z', indexerVersion: 't', docs: [doc('a.md', '1')] });
    const latest = latestPackReader(dir);
    const first = await latest();
    const again = await latest();
    expect(again).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(Object.isFrozen(first?.docs[0])).toBe(true);
  });

  it('sees a pack rewritten in place by another writer (same inode)', async () => {
    const dir = tempDir('latest-pack-');
    const path = join(dir, LATEST_PACK_FILE);
    const body = (version: number) => JSON.stringify({ version, generatedAt: 'x', indexerVersion: 't', packHash: 'h', docs: [] });
    writeFileSync(path, body(1));
    const latest = latestPackReader(dir);
    expect((await latest())?.version).toBe(1);
    writeFileSync(path, body(22));
    expect((await latest())?.version).toBe(22);
    writeFileSync(path, 'not json');
    expect(await latest()).toBeNull();
  });
});

describe('freshShared', () => {
  it('gives every caller a run started after its call, and callers arriving during a run share the next', async () => {
    const gates: Array<ReturnType<typeof deferred<void>>> = [];
    let started = 0;
    const shared = freshShared(async () => {
      const run = ++started;
      const gate = deferred<void>();
      gates.push(gate);
      await gate.promise;
      return run;
    });

    const a = shared();
    const b = shared();
    const c = shared();
    expect(started).toBe(1);
    gates[0]!.resolve();
    expect(await a).toBe(1);
    // b and c asked while run 1 was going: both get run 2, which started after their calls.
    await Promise.resolve();
    await new Promise((r) => setImmediate(r));
    expect(started).toBe(2);
    const d = shared(); // arrives during run 2: gets run 3
    gates[1]!.resolve();
    expect(await b).toBe(2);
    expect(await c).toBe(2);
    await new Promise((r) => setImmediate(r));
    gates[2]!.resolve();
    expect(await d).toBe(3);
    expect(started).toBe(3);
  });

  it('starts the next run after a failed one, and the failure reaches only the callers of that run', async () => {
    let calls = 0;
    const shared = freshShared(async () => {
      calls += 1;
      if (calls === 1) throw new Error('first fails');
      return calls;
    });
    const first = shared();
    const second = shared();
    await expect(first).rejects.toThrow('first fails');
    expect(await second).toBe(2);
    expect(await shared()).toBe(3);
  });
});
