import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { docSetKey, pendingDocSet } from '../../src/knowledge/doc-set.js';
import { cooldownOf, latestCooldown, liveCooldowns, withCooldown } from '../../src/knowledge/repair-cooldown.js';
import { DOC_REPAIR_LOCK, repairLocks } from '../../src/knowledge/repair-locks.js';
import { MAX_REPAIR_RECORDS, repairStateDoc, upsertRepair, type RepairRecord } from '../../src/knowledge/repair-state.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';

const stores: StateStore[] = [];
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
});

const NOW = new Date('2024-05-01T12:00:00.000Z');

function repair(n: number): RepairRecord {
  const id = `drift-repair:set-${n}:0`;
  return {
    repairId: id,
    runId: id,
    classification: 'doc-drift',
    status: 'verified',
    verificationMode: 'pack-hash-and-source-hashes',
    verificationSummary: null,
    docSet: `set-${n}`,
    paths: [],
    admittedAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    finishedAt: NOW.toISOString(),
    packVersion: n,
  };
}

describe('repair loop roles', () => {
  it('name a doc set by the first 500 pending paths, sorted', () => {
    const pending = Array.from({ length: 600 }, (_, i) => `docs/${String(599 - i).padStart(3, '0')}.md`);
    const { paths, docSet } = pendingDocSet(pending);
    expect(paths).toHaveLength(500);
    expect(paths).toEqual([...pending.slice(0, 500)].sort());
    expect(docSet).toBe(docSetKey(pending.slice(0, 500)));
  });

  it('keep a doc set cooling down until its cooldown ends, and forget ended cooldowns', () => {
    const cooldowns = withCooldown({ old: '2024-05-01T11:59:59.000Z' }, 'fresh', NOW, 10 * 60_000);
    expect(cooldowns.fresh).toBe('2024-05-01T12:10:00.000Z');
    expect(cooldownOf(cooldowns, 'fresh', NOW)).toBe('2024-05-01T12:10:00.000Z');
    expect(cooldownOf(cooldowns, 'fresh', new Date('2024-05-01T12:10:00.000Z'))).toBeNull();
    expect(cooldownOf(cooldowns, 'old', NOW)).toBeNull();
    expect(liveCooldowns(cooldowns, NOW)).toEqual({ fresh: '2024-05-01T12:10:00.000Z' });
    expect(latestCooldown({ ...cooldowns, later: '2024-05-01T12:30:00.000Z' }, NOW)).toBe('2024-05-01T12:30:00.000Z');
    expect(latestCooldown(cooldowns, new Date('2024-05-01T13:00:00.000Z'))).toBeNull();
  });

  it('keep the repair-loop state bounded: the newest records first, ended cooldowns dropped', async () => {
    const store = openStateStore(join(tempDir('repair-state-'), 'state.json'));
    await store.open();
    stores.push(store);
    const state = repairStateDoc({ store, clock: fixedClock(NOW.toISOString()) });
    expect(await state.read()).toEqual({ repairs: [], cooldowns: {} });

    let written = await state.write((s) => ({ ...s, cooldowns: { ended: '2024-05-01T11:00:00.000Z', running: '2024-05-01T12:05:00.000Z' } }));
    for (let n = 0; n <= MAX_REPAIR_RECORDS; n += 1) written = await state.write((s) => upsertRepair(s, repair(n)));
    expect(written.repairs).toHaveLength(MAX_REPAIR_RECORDS);
    expect(written.repairs[0]!.packVersion).toBe(MAX_REPAIR_RECORDS);
    expect(written.cooldowns).toEqual({ running: '2024-05-01T12:05:00.000Z' });
    expect(await state.read()).toEqual(written);

    // The same repair recorded again replaces its older record and comes first.
    const again = await state.write((s) => upsertRepair(s, { ...repair(150), status: 'failed' }));
    expect(again.repairs.filter((r) => r.repairId === repair(150).repairId)).toEqual([{ ...repair(150), status: 'failed' }]);
    expect(again.repairs[0]!.repairId).toBe(repair(150).repairId);
  });

  it('run work under a repair lock only while no other owner holds it', async () => {
    const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
    const mine = repairLocks(coordination, 'instance-a');
    expect(await mine(DOC_REPAIR_LOCK, 1, async () => 'decided')).toBe('decided');

    expect(await coordination.acquireLock(DOC_REPAIR_LOCK, 'instance-b', 30_000)).toBe(true);
    let ran = false;
    expect(
      await mine(DOC_REPAIR_LOCK, 3, async () => {
        ran = true;
      }),
    ).toBeNull();
    expect(ran).toBe(false);
  });
});
