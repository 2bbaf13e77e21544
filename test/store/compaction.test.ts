import { describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { PidLock } from '../../src/store/pid-lock.js';
import type { StoreFileHandle, StoreFs } from '../../src/store/store-fs.js';
import { PowerCutDisk } from '../support/power-cut-disk.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const STATE = '/compaction/state/orchestrator-state.json';
const JOURNAL = `${STATE}.journal`;
const SEALED = `${STATE}.journal.sealed`;
const TMP = `${STATE}.tmp`;

/** The in-memory disk has no processes: ownership is the test's business. */
/** The file-system steps of one background compaction, in order (the store's, from rotation on). */
const COMPACTION_STEPS = [
  'rename .journal', // seal the segment
  'open .journal', // the next segment
  'syncDirectory state', // both names durable before a line is acknowledged from the new file
  'close .journal',
  'open .tmp',
  'write .tmp',
  'sync .tmp',
  'close .tmp',
  'remove .prev',
  'link .prev',
  'rename .tmp', // the new snapshot in place
  'syncDirectory state',
  'remove .journal.sealed', // the snapshot covers it
  'syncDirectory state',
];

const noLock = async (path: string): Promise<PidLock> => ({ path, release: async () => undefined });

async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((r) => setImmediate(r));
}

async function until(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 10_000; i += 1) {
    if (condition()) return;
    await turns(1);
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `meta.lastSeq` of the snapshot as the live file system holds it now. */
function snapshotSeq(disk: PowerCutDisk): number {
  const bytes = disk.peek(STATE);
  return bytes === null ? -1 : (JSON.parse(bytes.toString('utf8')) as { meta: { lastSeq: number } }).meta.lastSeq;
}

/**
 * The disk's file system, with the compaction's snapshot write (`.tmp` opened for writing) held
 * until `release()`, or failing while `failing` is set. Only once `armed`: the store's own
 * compaction at open goes through untouched.
 */
function slowSnapshotFs(disk: PowerCutDisk) {
  const base = disk.mount();
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  const control = { armed: false, failing: false, tmpOpens: 0, release };
  const fs: StoreFs = {
    ...base,
    open: (path, flags) => {
      if (!control.armed || path !== TMP) return base.open(path, flags);
      control.tmpOpens += 1;
      if (control.failing) return Promise.reject(Object.assign(new Error(`EIO: ${path}`), { code: 'EIO' }));
      return held.then(() => base.open(path, flags));
    },
  };
  return { fs, control };
}

/**
 * The in-memory disk answers within a turn, so a compaction would be over before the next batch.
 * This one lingers (a few turns) before writing the snapshot and before dropping the sealed
 * segment, as a real disk would while the snapshot's megabytes go out.
 */
function lingeringCompactionFs(base: StoreFs): StoreFs {
  return {
    ...base,
    open: async (path, flags) => {
      if (path === TMP) await turns(6);
      return base.open(path, flags);
    },
    remove: async (path) => {
      if (path === SEALED) await turns(6);
      return base.remove(path);
    },
  };
}

async function openOn(fs: StoreFs, compactAfterEntries = 1_000_000): Promise<FileStateStore> {
  const store = new FileStateStore(STATE, { fs, acquireLock: noLock, compactAfterEntries, flushIntervalMs: 0 });
  await store.open();
  return store;
}

/** The file system with the handles of `target` given the calls `wrap` returns in place of theirs. */
function wrapHandlesOf(base: StoreFs, target: string, wrap: (handle: StoreFileHandle) => Partial<StoreFileHandle>): StoreFs {
  return {
    ...base,
    open: async (path, flags) => {
      const handle = await base.open(path, flags);
      return path === target ? { ...handle, ...wrap(handle) } : handle;
    },
  };
}

const insert = (store: FileStateStore, runId: string) => store.mutateRun(runId, insertIfAbsent(makeRun({ runId })));

describe('JSON file store compaction off the flush path', () => {
  it('acknowledges writes while a slow compaction is still writing its snapshot', async () => {
    const disk = new PowerCutDisk();
    const { fs, control } = slowSnapshotFs(disk);
    const store = await openOn(fs, 5);
    control.armed = true;
    for (let i = 0; i < 5; i += 1) await insert(store, `before-${i}`);
    await until(() => control.tmpOpens === 1, 'the compaction to reach its snapshot write');
    // The journal was rotated at the compaction point; the snapshot is still the one from open.
    expect(disk.peek(SEALED)).not.toBeNull();
    expect(snapshotSeq(disk)).toBe(0);

    const acknowledged: string[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) => insert(store, `during-${i}`).then(() => acknowledged.push(`during-${i}`))),
    );
    await store.mutateState((s) => ({ ...s, tasksProcessed: 7 }));
    // Every write is acknowledged while the snapshot write has not even opened its file.
    expect(acknowledged).toHaveLength(12);
    expect(snapshotSeq(disk)).toBe(0);
    expect(control.tmpOpens).toBe(1);
    expect((await store.health()).status).toBe('ok');

    control.release();
    await store.settle();
    expect(snapshotSeq(disk)).toBeGreaterThanOrEqual(5);
    expect(disk.peek(SEALED)).toBeNull();
    await store.close();

    const reopened = await openOn(disk.mount());
    expect((await reopened.listRuns({ limit: 100 })).total).toBe(17);
    expect((await reopened.getState()).tasksProcessed).toBe(7);
    await reopened.close();
  });

  it('replays the sealed segment and the new one after a power cut between rotation and snapshot rename', async () => {
    const disk = new PowerCutDisk();
    const { fs, control } = slowSnapshotFs(disk);
    const store = await openOn(fs, 4);
    control.armed = true;
    for (let i = 0; i < 4; i += 1) await insert(store, `sealed-${i}`);
    await until(() => control.tmpOpens === 1, 'the compaction to reach its snapshot write');
    for (let i = 0; i < 3; i += 1) await insert(store, `active-${i}`);
    await store.append('telemetry', { n: 1 }, 10);
    expect(disk.peek(SEALED)?.toString('utf8')).toContain('"runId":"sealed-3"');
    expect(disk.peek(JOURNAL)?.toString('utf8')).toContain('"runId":"active-2"');

    disk.powerCut({ tornTails: true });
    const reopened = await openOn(disk.mount());
    const ids = (await reopened.listRuns({ limit: 100 })).items.map((r) => r.runId).sort();
    expect(ids).toEqual(['active-0', 'active-1', 'active-2', 'sealed-0', 'sealed-1', 'sealed-2', 'sealed-3']);
    expect((await reopened.listAppended('telemetry', { limit: 10 })).total).toBe(1);
    // Opening folded both segments into the snapshot and dropped the sealed one.
    expect(disk.peek(SEALED)).toBeNull();
    expect(snapshotSeq(disk)).toBe(8);
    await reopened.close();
  });

  it('keeps everything when the snapshot write fails, and retries without sealing another segment', async () => {
    const disk = new PowerCutDisk();
    const { fs, control } = slowSnapshotFs(disk);
    const store = await openOn(fs, 3);
    control.armed = true;
    control.failing = true;
    control.release();
    for (let i = 0; i < 3; i += 1) await insert(store, `a-${i}`);
    await store.settle();
    expect((await store.health()).status).toBe('degraded');
    expect(disk.peek(SEALED)).not.toBeNull();
    for (let i = 0; i < 3; i += 1) await insert(store, `b-${i}`);
    await store.settle();
    expect(control.tmpOpens).toBe(2);

    control.failing = false;
    for (let i = 0; i < 3; i += 1) await insert(store, `c-${i}`);
    await store.settle();
    expect(control.tmpOpens).toBe(3);
    expect((await store.health()).status).toBe('ok');
    expect(disk.peek(SEALED)).toBeNull();
    expect(snapshotSeq(disk)).toBe(9);

    disk.powerCut({ tornTails: true });
    const reopened = await openOn(disk.mount());
    expect((await reopened.listRuns({ limit: 100 })).total).toBe(9);
    await reopened.close();
  });

  it('loses no acknowledged write and applies none twice, whatever step of a compaction the power is cut at', async () => {
    let cutsLanded = 0;
    const stepsCut: string[] = [];
    /** Cycles in which writes were acknowledged between the rotation and the cut. */
    let cyclesAcknowledgingDuringCompaction = 0;
    for (let cutAt = 0; cutAt < COMPACTION_STEPS.length; cutAt += 1) {
      const disk = new PowerCutDisk(() => 0.5);
      const store = await openOn(lingeringCompactionFs(disk.mount()), 10);
      // Counts the compaction's own file-system steps, from the journal rotation on; the appends
      // and fdatasyncs of the journal that go on meanwhile are not steps of it.
      let step = -1;
      disk.armCut((op, path) => {
        if (op === 'rename' && path === JOURNAL) step = 0;
        else if (step >= 0 && !(path === JOURNAL && (op === 'append' || op === 'datasync'))) step += 1;
        if (step < cutAt) return false;
        stepsCut.push(`${op} ${path.slice(STATE.length) || 'state'}`);
        return true;
      });
      const acknowledged: number[] = [];
      let acknowledgedDuringCompaction = 0;
      const triggeredBefore = disk.triggeredCuts;
      for (let n = 0; n < 60; n += 1) {
        void store.append('telemetry', { n }, 1000).then(() => {
          acknowledged.push(n);
          if (step >= 0 && disk.triggeredCuts === triggeredBefore) acknowledgedDuringCompaction += 1;
        });
        if (n % 3 === 0) await turns(1);
      }
      await turns(30);
      disk.disarm();
      if (acknowledgedDuringCompaction > 0) cyclesAcknowledgingDuringCompaction += 1;
      if (disk.triggeredCuts > triggeredBefore) cutsLanded += 1;
      else disk.powerCut({ tornTails: true });

      const reopened = await openOn(disk.mount());
      const stored = (await reopened.listAppended('telemetry', { limit: 1000 })).items.map((item) => item.n as number).reverse();
      // Replayed in order, each once: a strictly increasing prefix of what was issued.
      expect(stored, `cut at step ${cutAt}`).toEqual(stored.map((_, i) => i));
      for (const n of acknowledged) expect(stored, `cut at step ${cutAt}: acknowledged ${n}`).toContain(n);
      await reopened.close();
    }
    // The cuts met every step of a compaction (rotation to the sealed segment's removal), with
    // writes being acknowledged while it ran.
    expect(stepsCut).toEqual(COMPACTION_STEPS);
    expect(cutsLanded).toBe(COMPACTION_STEPS.length);
    console.info(`${cyclesAcknowledgingDuringCompaction} of ${COMPACTION_STEPS.length} cycles acknowledged writes mid-compaction`);
    expect(cyclesAcknowledgingDuringCompaction).toBeGreaterThanOrEqual(COMPACTION_STEPS.length / 2);
  });
});

describe('JSON file store snapshot written in slices', () => {
  it('writes a snapshot larger than one slice intact, characters outside the BMP included', async () => {
    // 1.5 million UTF-16 units: a slice boundary falls inside a surrogate pair for one of the
    // two prefixes, unless the writer avoids it.
    for (const prefix of ['a', 'ab']) {
      const disk = new PowerCutDisk();
      const store = await openOn(disk.mount());
      const text = `${prefix}${'\u{1F600}'.repeat(750_000)}`;
      await store.putDoc('big', 'one', { text });
      await store.close();
      disk.powerCut();
      const reopened = await openOn(disk.mount());
      expect((await reopened.getDoc('big', 'one'))?.text === text, `prefix ${prefix}`).toBe(true);
      await reopened.close();
    }
  });
});

describe('JSON file store snapshot written in pieces', () => {
  it('writes runs in pieces, each megabyte synced before the next, and reads back every run as stored', async () => {
    const disk = new PowerCutDisk();
    const tmpEvents: string[] = [];
    const fs = wrapHandlesOf(disk.mount(), TMP, (handle) => ({
      write: async (data) => {
        tmpEvents.push(`write ${data.length}`);
        await handle.write(data);
      },
      datasync: async () => {
        tmpEvents.push('datasync');
        await handle.datasync();
      },
    }));
    const store = await openOn(fs);
    // About 3 million characters of runs (1,200 of ~2,500): pieces of 500 runs pass a megabyte, so three writes, the first two followed by a datasync.
    const note = 'é'.repeat(2_000);
    for (let i = 0; i < 1_200; i += 1) await store.mutateRun(`run-${i}`, insertIfAbsent(makeRun({ runId: `run-${i}`, payload: { note, i } })));
    const before = await store.listRuns({ limit: 2_000 });
    tmpEvents.length = 0;
    await store.close();
    disk.powerCut();
    expect(tmpEvents.filter((e) => e.startsWith('write')).length).toBeGreaterThanOrEqual(3);
    expect(tmpEvents.at(-1)).toMatch(/^write/);
    for (let i = 0; i < tmpEvents.length - 1; i += 1) {
      if (tmpEvents[i]!.startsWith('write')) expect(tmpEvents[i + 1]).toBe('datasync');
    }
    const reopened = await openOn(disk.mount());
    const after = await reopened.listRuns({ limit: 2_000 });
    expect(after.total).toBe(1_200);
    expect(after.items).toEqual(before.items);
    await reopened.close();
    // 1,200 writes on the simulated disk are CPU work (about 14 s on a quiet 2-core host): the
    // bound leaves room for a busy one; it is a deadline, not a measurement.
  }, 120_000);
});

describe('JSON file store pipelined group commit', () => {
  it('appends the next batch while the previous fdatasync runs, and acknowledges each batch only after its own', async () => {
    const disk = new PowerCutDisk();
    const heldSyncs: Array<() => void> = [];
    let holding = false;
    const fs = wrapHandlesOf(disk.mount(), JOURNAL, (handle) => ({
      datasync: async () => {
        if (holding) await new Promise<void>((resolve) => heldSyncs.push(resolve));
        await handle.datasync();
      },
    }));
    const store = await openOn(fs);
    holding = true;
    const acked: string[] = [];
    void insert(store, 'first').then(() => acked.push('first'));
    await until(() => heldSyncs.length === 1, 'the first batch to reach its fdatasync');
    void insert(store, 'second').then(() => acked.push('second'));
    // The second batch is written while the first one's fdatasync is still running...
    await until(() => disk.peek(JOURNAL)?.toString('utf8').includes('"runId":"second"') === true, 'the second append');
    await turns(5);
    // ...but its own fdatasync waits for the first one to return, and nothing is acknowledged yet.
    expect(heldSyncs).toHaveLength(1);
    expect(acked).toEqual([]);

    heldSyncs.shift()!();
    await until(() => heldSyncs.length === 1, 'the second batch to reach its fdatasync');
    await turns(5);
    // The first fdatasync may have carried the second batch's bytes too, but the second batch is
    // acknowledged only by an fdatasync that started after it was written.
    expect(acked).toEqual(['first']);
    heldSyncs.shift()!();
    await until(() => acked.length === 2, 'the second acknowledgement');
    holding = false;
    await store.close();
    const reopened = await openOn(disk.mount());
    expect((await reopened.listRuns({ limit: 10 })).total).toBe(2);
    await reopened.close();
  });

  it("appends lines after a rotation while the rotation's directory fsync runs, and acknowledges them only after it", async () => {
    const disk = new PowerCutDisk();
    const base = disk.mount();
    let holdNextDirectorySync = false;
    let releaseDirectorySync: (() => void) | null = null;
    const fs: StoreFs = {
      ...base,
      syncDirectory: async (dir) => {
        if (holdNextDirectorySync) {
          holdNextDirectorySync = false;
          await new Promise<void>((resolve) => (releaseDirectorySync = resolve));
        }
        await base.syncDirectory(dir);
      },
    };
    const store = await openOn(fs, 3);
    holdNextDirectorySync = true;
    // Three entries reach the threshold: the next flush slot seals the segment (rotation).
    for (const runId of ['a', 'b', 'c']) await insert(store, runId);
    await until(() => releaseDirectorySync !== null, "the rotation's directory fsync");
    const acked: string[] = [];
    void insert(store, 'after').then(() => acked.push('after'));
    // The flush slot did not wait for the directory fsync: the line is already in the new segment...
    await until(() => disk.peek(JOURNAL)?.toString('utf8').includes('"runId":"after"') === true, 'the append after the rotation');
    await turns(5);
    // ...but it is not acknowledged before both names are durable.
    expect(acked).toEqual([]);
    releaseDirectorySync!();
    await until(() => acked.length === 1, 'the acknowledgement after the directory fsync');
    await store.close();
    const reopened = await openOn(disk.mount());
    expect((await reopened.listRuns({ limit: 10 })).total).toBe(4);
    await reopened.close();
  });
});

describe('JSON file store compaction thresholds', () => {
  /** `meta.lastSeq` of every snapshot put in place after `armed` is set, in order. */
  function snapshotLog(disk: PowerCutDisk) {
    const base = disk.mount();
    const log = { armed: false, seqs: [] as number[] };
    const fs: StoreFs = {
      ...base,
      rename: async (from, to) => {
        await base.rename(from, to);
        if (log.armed && to === STATE) log.seqs.push(snapshotSeq(disk));
      },
    };
    return { fs, log };
  }

  async function compactionsOver(scaleWithSnapshot: boolean, inserts: number): Promise<number[]> {
    const disk = new PowerCutDisk();
    const { fs, log } = snapshotLog(disk);
    const store = new FileStateStore(STATE, { fs, acquireLock: noLock, compactAfterEntries: 5, scaleWithSnapshot, flushIntervalMs: 0 });
    await store.open();
    log.armed = true;
    for (let i = 0; i < inserts; i += 1) {
      await insert(store, `run-${i}`);
      await store.settle();
    }
    await store.close();
    const reopened = await openOn(disk.mount());
    expect((await reopened.listRuns({ limit: 1 })).total).toBe(inserts);
    await reopened.close();
    // The last entry is the snapshot written at close.
    return log.seqs.slice(0, -1);
  }

  it('grows with the snapshot, so each compaction follows at least as many lines as the previous snapshot held records', async () => {
    const scaled = await compactionsOver(true, 80);
    // One line per insert: the snapshot at seq N holds N runs, the next waits for N more lines.
    for (let i = 1; i < scaled.length; i += 1) expect(scaled[i]! - scaled[i - 1]!).toBeGreaterThanOrEqual(scaled[i - 1]!);
    expect(scaled.length).toBeLessThanOrEqual(5);
    expect(scaled.length).toBeGreaterThanOrEqual(3);
  });

  it('stays fixed when asked to', async () => {
    const fixed = await compactionsOver(false, 80);
    expect(fixed.length).toBeGreaterThanOrEqual(14);
  });
});
