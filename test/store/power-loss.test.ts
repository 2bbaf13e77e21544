import { describe, expect, it } from 'vitest';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { PidLock } from '../../src/store/pid-lock.js';
import { PowerCutDisk } from '../support/power-cut-disk.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const CYCLES = Number(process.env.POWER_CUT_CYCLES ?? 40);
const STATE = '/power/state/orchestrator-state.json';

function rng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Lets `n` turns of the event loop pass (the in-memory disk answers within one). */
async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i += 1) await new Promise((r) => setImmediate(r));
}

/** The in-memory disk has no processes: ownership is the test's business. */
const noLock = async (path: string): Promise<PidLock> => ({ path, release: async () => undefined });

describe('JSON file store under power loss (writes since the last fsync are dropped)', () => {
  it(`keeps every acknowledged write over ${CYCLES} power cuts, compactions included`, async () => {
    const seed = Number(process.env.POWER_CUT_SEED ?? 777);
    const random = rng(seed);
    const disk = new PowerCutDisk(random);
    const acknowledgedRuns: string[] = [];
    /** The newest value of the doc `counter/main` whose putDoc resolved. */
    let acknowledgedCounter = -1;
    const lost: string[] = [];
    let cutsWithWritesInFlight = 0;
    let cutsDuringCompaction = 0;

    for (let cycle = 0; cycle < CYCLES; cycle += 1) {
      const store = new FileStateStore(STATE, { fs: disk.mount(), acquireLock: noLock, compactAfterEntries: 25 });
      await store.open();
      // Every fourth cycle cuts the power in the middle of the next compaction: at a random step
      // from sealing the journal segment to removing it once the new snapshot covers it (the
      // journal's own appends and fdatasyncs, which go on meanwhile, count as steps too).
      const aimAtCompaction = cycle % 4 === 3;
      const triggeredBefore = disk.triggeredCuts;
      if (aimAtCompaction) {
        const cutAt = Math.floor(random() * 16);
        let step = -1;
        disk.armCut((op, path) => {
          if (op === 'rename' && path === `${STATE}.journal`) step = 0;
          else if (step >= 0) step += 1;
          return step >= cutAt;
        });
      }
      for (const runId of acknowledgedRuns) if ((await store.getRun(runId)) === null) lost.push(`run ${runId} after cut ${cycle}`);
      const counter = (await store.getDoc('counter', 'main'))?.value;
      if (acknowledgedCounter >= 0 && (typeof counter !== 'number' || counter < acknowledgedCounter)) {
        lost.push(`counter ${String(counter)} after cut ${cycle}, ${acknowledgedCounter} was acknowledged`);
      }

      let inFlight = 0;
      const writes = Math.floor(20 + random() * 60);
      for (let i = 0; i < writes; i += 1) {
        const runId = `c${cycle}-${i}`;
        inFlight += 1;
        void store.mutateRun(runId, insertIfAbsent(makeRun({ runId, payload: { text: 'x'.repeat(Math.floor(random() * 400)) } }))).then(() => {
          inFlight -= 1;
          acknowledgedRuns.push(runId);
        });
        if (i % 10 === 0) {
          const value = cycle * 1000 + i;
          inFlight += 1;
          void store.putDoc('counter', 'main', { value }).then(() => {
            inFlight -= 1;
            acknowledgedCounter = Math.max(acknowledgedCounter, value);
          });
        }
        // A few turns of the event loop now and then: some batches reach the disk, others not yet.
        if (random() < 0.1) await turns(Math.floor(random() * 4));
      }
      await turns(Math.floor(random() * 6));
      if (inFlight > 0) cutsWithWritesInFlight += 1;
      // The machine dies: the running store is fenced, unsynced bytes and names are gone. An aimed
      // cut waits for the compaction to reach its step (bounded): on a loaded host the compaction
      // can take longer than a fixed number of turns to begin.
      if (aimAtCompaction) {
        const deadline = Date.now() + 3000;
        await turns(20);
        while (disk.triggeredCuts === triggeredBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 2));
      }
      disk.disarm();
      if (disk.triggeredCuts > triggeredBefore) cutsDuringCompaction += 1;
      else disk.powerCut({ tornTails: true });
    }

    const store = new FileStateStore(STATE, { fs: disk.mount(), acquireLock: noLock });
    await store.open();
    for (const runId of acknowledgedRuns) if ((await store.getRun(runId)) === null) lost.push(`run ${runId} at the end`);
    await store.close();

    console.info(
      `seed ${seed}: ${acknowledgedRuns.length} acknowledged runs, ${disk.syncs} fsyncs, ${disk.renames} snapshot renames; ` +
        `${cutsWithWritesInFlight} of ${CYCLES} cuts met writes in flight, ${cutsDuringCompaction} met a compaction`,
    );
    expect(lost, `seed ${seed}`).toEqual([]);
    // The cycles proved something: writes were acknowledged, and cuts met writes still in flight.
    expect(acknowledgedRuns.length).toBeGreaterThan(CYCLES * 5);
    expect(cutsWithWritesInFlight).toBeGreaterThan(CYCLES / 4);
    expect(disk.syncs).toBeGreaterThan(CYCLES);
    expect(disk.renames).toBeGreaterThan(CYCLES);
    expect(cutsDuringCompaction).toBeGreaterThan(CYCLES / 8);
  }, 120_000);
});
