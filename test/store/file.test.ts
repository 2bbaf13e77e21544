import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileStateStore, type FileStoreOptions } from '../../src/store/file/file-state-store.js';
import { readJournal, readJournalSegments } from '../../src/store/file/journal-replay.js';
import { Journal } from '../../src/store/file/journal.js';
import type { StoreLogger } from '../../src/store/options.js';
import { tempDir } from '../support/config.js';
import { describeStoreConformance } from './conformance.js';
import { runAndKill } from '../support/store-crash.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const STATE = join('data', 'orchestrator-state.json');

describeStoreConformance('FileStateStore', (dir) => new FileStateStore(join(dir, STATE)));
describeStoreConformance(
  'FileStateStore compacting every few writes',
  (dir) => new FileStateStore(join(dir, STATE), { compactAfterEntries: 7 }),
);

describe('FileStateStore on disk', () => {
  const open: FileStateStore[] = [];

  async function openStore(dir: string, options: FileStoreOptions = {}): Promise<FileStateStore> {
    const store = new FileStateStore(join(dir, STATE), options);
    await store.open();
    open.push(store);
    return store;
  }

  async function insertRuns(store: FileStateStore, ids: string[]): Promise<void> {
    await Promise.all(ids.map((runId) => store.mutateRun(runId, insertIfAbsent(makeRun({ runId })))));
  }

  /** What a crash leaves: the files of an open store, copied while it runs (its lock copied too). */
  function crashCopy(dir: string): string {
    const copy = tempDir('store-crash-copy-');
    cpSync(join(dir, 'data'), join(copy, 'data'), { recursive: true });
    return copy;
  }

  const paths = (dir: string) => {
    const snapshot = join(dir, STATE);
    return { snapshot, journal: `${snapshot}.journal`, prev: `${snapshot}.prev`, tmp: `${snapshot}.tmp`, lock: `${snapshot}.lock` };
  };

  function spyLogger(): StoreLogger & { warn: ReturnType<typeof vi.fn<StoreLogger['warn']>> } {
    return { info: vi.fn(), warn: vi.fn<StoreLogger['warn']>(), error: vi.fn() };
  }

  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
  });

  it('creates its directory and a snapshot at open; close folds the journal into it', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    const p = paths(dir);
    expect(JSON.parse(readFileSync(p.snapshot, 'utf8'))).toMatchObject({ tasksProcessed: 0, runs: [], meta: { lastSeq: 0 } });
    expect(readFileSync(p.lock, 'utf8').trim()).toBe(String(process.pid));

    await insertRuns(store, ['a', 'b']);
    expect(readFileSync(p.journal, 'utf8').trim().split('\n')).toHaveLength(2);
    await store.close();

    const snapshot = JSON.parse(readFileSync(p.snapshot, 'utf8'));
    expect(snapshot.runs.map((r: { runId: string }) => r.runId)).toEqual(['a', 'b']);
    expect(snapshot.meta).toEqual({ schemaVersion: 1, lastSeq: 2 });
    expect(readFileSync(p.journal, 'utf8')).toBe('');
    expect(JSON.parse(readFileSync(p.prev, 'utf8')).meta.lastSeq).toBe(0);
    expect(existsSync(p.lock)).toBe(false);
  });

  it('has a write on disk when its promise resolves, also an unchanged mutateRun reading it', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { flushIntervalMs: 50 });
    await insertRuns(store, ['warm-up']); // the next batch now waits for the interval
    const insert = store.mutateRun('r1', insertIfAbsent(makeRun({ runId: 'r1' })));
    const sawIt = await store.mutateRun('r1', () => null);
    expect(sawIt.after?.runId).toBe('r1');
    expect(readFileSync(paths(dir).journal, 'utf8')).toContain('"runId":"r1"');
    await insert;
  });

  it('group-commits: writes issued together share one batch, later ones wait for the interval', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { flushIntervalMs: 400 });
    await new Promise((r) => setTimeout(r, 450));
    // Idle: the batch starts at once and carries all 100 writes.
    const together = performance.now();
    await insertRuns(store, Array.from({ length: 100 }, (_, i) => `batch-${i}`));
    expect(performance.now() - together).toBeLessThan(350);

    // Each of the next two writes waits for the interval since the previous batch started.
    const sequential = performance.now();
    await insertRuns(store, ['next-1']);
    await insertRuns(store, ['next-2']);
    expect(performance.now() - sequential).toBeGreaterThanOrEqual(600);
  });

  it('compacts once the journal passes its threshold and reopens from snapshot + journal', async () => {
    const dir = tempDir();
    const store = await openStore(dir, { compactAfterEntries: 10 });
    for (let i = 0; i < 25; i++) await insertRuns(store, [`run-${i}`]);
    await store.settle();
    const p = paths(dir);
    const journalSeqs = readFileSync(p.journal, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line).seq as number);
    const journalLines = journalSeqs.length;
    expect(journalLines).toBeLessThan(10);
    expect(existsSync(`${p.snapshot}.journal.sealed`)).toBe(false);
    const snapshot = JSON.parse(readFileSync(p.snapshot, 'utf8'));
    // The journal continues the snapshot (it may repeat lines the snapshot captured while buffered).
    expect(snapshot.meta.lastSeq).toBeGreaterThanOrEqual(25 - journalLines);
    expect(journalSeqs.at(-1) ?? snapshot.meta.lastSeq).toBe(25);
    expect(existsSync(p.prev)).toBe(true);
    expect((await store.health()).detail).toContain(`${journalLines} journal entries`);

    const copy = crashCopy(dir);
    const recovered = await openStore(copy);
    expect((await recovered.listRuns({ limit: 100 })).total).toBe(25);
  });

  it('recovers from a crash between the snapshot rename and the journal truncation', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await insertRuns(store, ['a', 'b', 'c']);
    await store.mutateState((s) => ({ ...s, tasksProcessed: s.tasksProcessed + 1 }));
    await store.append('telemetry', { event: 'accepted' }, 10);
    const staleJournal = readFileSync(paths(dir).journal);
    await store.close(); // snapshot now covers every journal line

    writeFileSync(paths(dir).journal, staleJournal);
    writeFileSync(paths(dir).tmp, '{"half written');
    const reopened = await openStore(dir);
    expect((await reopened.listRuns({})).items.map((r) => r.runId)).toEqual(['c', 'b', 'a']);
    expect((await reopened.getState()).tasksProcessed).toBe(1);
    expect((await reopened.listAppended('telemetry', { limit: 10 })).total).toBe(1);
    expect(existsSync(paths(dir).tmp)).toBe(false);
  });

  it('ignores and cuts off a torn last journal line', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await insertRuns(store, ['a', 'b']);
    const copy = crashCopy(dir);
    appendFileSync(paths(copy).journal, '{"seq":3,"op":"run","record":{"runId":"torn","se');

    const logger = spyLogger();
    const recovered = await openStore(copy, { logger });
    expect((await recovered.listRuns({})).items.map((r) => r.runId)).toEqual(['b', 'a']);
    expect(await recovered.getRun('torn')).toBeNull();
    expect(logger.warn).toHaveBeenCalledWith(expect.objectContaining({ keptEntries: 2 }), expect.stringContaining('torn'));
    const next = await recovered.mutateRun('after', insertIfAbsent(makeRun({ runId: 'after' })));
    expect(next.after?.seq).toBe(3);
  });

  it('treats several bad lines at the end (a torn batch) as the torn tail too', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await insertRuns(store, ['a']);
    const copy = crashCopy(dir);
    appendFileSync(paths(copy).journal, '\0\0\0\0\n{"seq":2,"op":"r\n');
    const recovered = await openStore(copy);
    expect((await recovered.listRuns({})).total).toBe(1);
  });

  it('refuses a corrupt journal line followed by valid ones, modifying nothing', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await insertRuns(store, ['a']);
    await insertRuns(store, ['b']);
    const copy = crashCopy(dir);
    const p = paths(copy);
    const lines = readFileSync(p.journal, 'utf8').split('\n');
    lines[0] = lines[0]!.replace('"op":"run"', '"op":"nonsense"');
    writeFileSync(p.journal, lines.join('\n'));
    const journalBytes = readFileSync(p.journal);
    const snapshotBytes = readFileSync(p.snapshot);

    const attempt = new FileStateStore(p.snapshot);
    await expect(attempt.open()).rejects.toMatchObject({ code: 'state_corrupt' });
    await expect(attempt.open()).rejects.toThrow(/line 1 is corrupt \(unknown op "nonsense"\) and is followed by valid entries/);
    expect(readFileSync(p.journal)).toEqual(journalBytes);
    expect(readFileSync(p.snapshot)).toEqual(snapshotBytes);
  });

  it('refuses a journal that skips seqs the snapshot does not cover', async () => {
    const dir = tempDir();
    const store = await openStore(dir);
    await insertRuns(store, ['a']);
    const copy = crashCopy(dir);
    const p = paths(copy);
    const first = JSON.parse(readFileSync(p.journal, 'utf8').trim());
    writeFileSync(p.journal, `${JSON.stringify({ ...first, seq: 5 })}\n`);
    await expect(new FileStateStore(p.snapshot).open()).rejects.toThrow(/continues at seq 5 but seq 1 is missing/);
  });

  it('refuses a corrupt snapshot as state_corrupt naming the file and .prev, changing no file', async () => {
    const dir = tempDir();
    const first = await openStore(dir);
    await insertRuns(first, ['a']);
    await first.close();
    const p = paths(dir);
    writeFileSync(p.snapshot, '{"tasksProcessed": 3, "runs": [');
    const before = { snapshot: readFileSync(p.snapshot), prev: readFileSync(p.prev), journal: readFileSync(p.journal) };

    const store = new FileStateStore(p.snapshot);
    const error = await store.open().then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toMatchObject({ code: 'state_corrupt' });
    expect((error as Error).message).toContain(`state file ${p.snapshot} is not valid JSON`);
    expect((error as Error).message).toContain(`The previous good copy is ${p.prev}`);
    expect(readFileSync(p.snapshot)).toEqual(before.snapshot);
    expect(readFileSync(p.prev)).toEqual(before.prev);
    expect(readFileSync(p.journal)).toEqual(before.journal);
    expect(existsSync(p.lock)).toBe(false);
    expect(existsSync(p.tmp)).toBe(false);
  });

  it('refuses snapshots of the wrong shape or a newer layout', async () => {
    const cases: Array<[unknown, RegExp]> = [
      [[1, 2], /top level is not an object/],
      [{ meta: { schemaVersion: 1, lastSeq: 0 }, tasksProcessed: 0, runs: 'x' }, /taskHistory is not an array|runs is not an array/],
      [{ meta: { schemaVersion: 9, lastSeq: 0 } }, /schemaVersion is 9, this build reads 1/],
      [{ hello: 'world' }, /neither meta nor any OrchestratorState field/],
      [
        {
          lastStartedAt: null,
          tasksProcessed: 0,
          taskHistory: [],
          docsIndexed: [],
          communityResponses: [],
          rssDrafts: [],
          deployedAgents: [],
          runs: [{ ...makeRun({ runId: 'a', seq: 1 }), status: 'exploded' }],
          meta: { schemaVersion: 1, lastSeq: 1 },
        },
        /runs\[0\]\.status is not a run status/,
      ],
    ];
    for (const [content, message] of cases) {
      const dir = tempDir();
      const p = paths(dir);
      mkdirSync(join(dir, 'data'));
      writeFileSync(p.snapshot, JSON.stringify(content));
      const error = await new FileStateStore(p.snapshot).open().then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).toMatchObject({ code: 'state_corrupt' });
      expect((error as Error).message).toMatch(message);
    }
  });

  it('refuses to start fresh when the snapshot is gone but an older copy exists', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    const reopened = await openStore(dir);
    await reopened.close();
    const p = paths(dir);
    rmSync(p.snapshot);
    await expect(new FileStateStore(p.snapshot).open()).rejects.toThrow(/is missing although an older copy exists/);
  });

  it('reads a state file of the earlier layout (OrchestratorState only) and keeps it as .prev', async () => {
    const dir = tempDir();
    const p = paths(dir);
    mkdirSync(join(dir, 'data'));
    const legacy = {
      lastStartedAt: '2025-12-31T00:00:00.000Z',
      tasksProcessed: 41,
      taskHistory: [{ type: 'heartbeat', status: 'completed', timestamp: '2025-12-31T00:00:00.000Z', durationMs: 3 }],
      docsIndexed: ['docs/a.md'],
      communityResponses: [],
      rssDrafts: [],
      deployedAgents: [],
      notes: 'from the old service',
    };
    writeFileSync(p.snapshot, JSON.stringify(legacy, null, 2));
    const store = await openStore(dir);
    expect(await store.getState()).toEqual(legacy);
    expect((await store.listRuns({})).total).toBe(0);
    expect(JSON.parse(readFileSync(p.prev, 'utf8'))).toEqual(legacy);
    expect(JSON.parse(readFileSync(p.snapshot, 'utf8')).meta).toEqual({ schemaVersion: 1, lastSeq: 0 });
  });

  it('refuses a state file whose lock is held by a live process', async () => {
    const dir = tempDir();
    await (await openStore(dir)).close();
    writeFileSync(paths(dir).lock, `${process.ppid}\n`);
    await expect(new FileStateStore(paths(dir).snapshot).open()).rejects.toThrow(`is in use by pid ${process.ppid}`);
  });

  it('refuses to store a record a restart could not load', async () => {
    const store = await openStore(tempDir());
    await expect(
      store.mutateRun('r', () => ({ ...makeRun({ runId: 'r' }), status: 'bogus' as never })),
    ).rejects.toThrow(/status is not a run status/);
    await expect(store.mutateState((s) => ({ ...s, tasksProcessed: Number.NaN }))).rejects.toThrow(/tasksProcessed/);
    expect(await store.getRun('r')).toBeNull();
    expect((await store.getState()).tasksProcessed).toBe(0);
  });

  it('keeps every acknowledged write across repeated SIGKILLs (with compactions in between)', async () => {
    const dir = tempDir();
    const target = join(dir, STATE);
    const acknowledged: string[] = [];
    let stateAcknowledged = 0;
    for (const [round, killAfter] of [120, 400, 40].entries()) {
      const outcome = await runAndKill(target, `round${round}`, killAfter, ['25']);
      acknowledged.push(...outcome.acknowledgedRuns);
      stateAcknowledged = Math.max(stateAcknowledged, outcome.acknowledgedState);
      expect(outcome.acknowledgedRuns.length).toBeGreaterThanOrEqual(killAfter);
    }
    const store = await openStore(dir);
    const missing = [];
    for (const runId of acknowledged) if ((await store.getRun(runId)) === null) missing.push(runId);
    expect(missing).toEqual([]);
    expect((await store.getState()).tasksProcessed).toBeGreaterThanOrEqual(stateAcknowledged);
  }, 60_000);
});

describe('readJournal', () => {
  const line = (seq: number, runId = `r${seq}`) =>
    `${JSON.stringify({ seq, op: 'run', record: makeRun({ runId, seq }) })}\n`;

  function journalWith(text: string): string {
    const path = join(tempDir(), 'state.json.journal');
    writeFileSync(path, text);
    return path;
  }

  it('returns nothing for a missing journal', async () => {
    expect(await readJournal(join(tempDir(), 'absent.journal'), 0)).toEqual({
      entries: [],
      lineCount: 0,
      validBytes: 0,
      tornBytes: 0,
    });
  });

  it('skips entries the snapshot already covers', async () => {
    const replay = await readJournal(journalWith(line(3) + line(4) + line(5) + line(6)), 4);
    expect(replay.entries.map((e) => e.seq)).toEqual([5, 6]);
    expect(replay.lineCount).toBe(4);
  });

  it('accepts a stale prefix followed by the continuation of the snapshot', async () => {
    // The crash came after a snapshot covering seq 6 while lines 5..6 were still only buffered.
    const replay = await readJournal(journalWith(line(3) + line(4) + line(7)), 6);
    expect(replay.entries.map((e) => e.seq)).toEqual([7]);
  });

  it('refuses out-of-order seqs', async () => {
    await expect(readJournal(journalWith(line(1) + line(3) + line(2)), 0)).rejects.toThrow(/out of order/);
  });

  it('reports the torn tail length', async () => {
    const good = line(1) + line(2);
    const replay = await readJournal(journalWith(`${good}${line(3).slice(0, 20)}`), 0);
    expect(replay.entries).toHaveLength(2);
    expect(replay.validBytes).toBe(Buffer.byteLength(good));
    expect(replay.tornBytes).toBe(20);
  });

  it('counts a complete but unterminated last line as torn (its write never finished)', async () => {
    const replay = await readJournal(journalWith(line(1) + line(2).trimEnd()), 0);
    expect(replay.entries.map((e) => e.seq)).toEqual([1]);
    expect(replay.tornBytes).toBeGreaterThan(0);
  });
});

describe('readJournalSegments', () => {
  const line = (seq: number) => `${JSON.stringify({ seq, op: 'run', record: makeRun({ runId: `r${seq}`, seq }) })}\n`;

  function segments(sealed: string | null, active: string): { sealed: string; active: string } {
    const dir = tempDir();
    const paths = { sealed: join(dir, 'state.json.journal.sealed'), active: join(dir, 'state.json.journal') };
    if (sealed !== null) writeFileSync(paths.sealed, sealed);
    writeFileSync(paths.active, active);
    return paths;
  }

  it('replays the sealed segment, then the active one, on top of the snapshot', async () => {
    const replay = await readJournalSegments(segments(line(3) + line(4), line(5) + line(6)), 2);
    expect(replay.entries.map((e) => e.seq)).toEqual([3, 4, 5, 6]);
    expect(replay.sealed).toBe(true);
    expect(replay.lineCount).toBe(2);
  });

  it('skips what the snapshot covers in both (the crash came after the snapshot rename)', async () => {
    // The active segment repeats lines that were still buffered when the snapshot was captured.
    const replay = await readJournalSegments(segments(line(3) + line(4), line(5) + line(6) + line(7)), 6);
    expect(replay.entries.map((e) => e.seq)).toEqual([7]);
  });

  it('refuses a gap between the segments and a torn sealed segment', async () => {
    await expect(readJournalSegments(segments(line(3), line(5)), 2)).rejects.toThrow(/seq 4 is missing/);
    await expect(readJournalSegments(segments(line(3) + line(4).slice(0, 9), line(4)), 2)).rejects.toThrow(
      /sealed state journal .* was fully synced/,
    );
  });

  it('reads the active journal alone when no segment is sealed', async () => {
    const replay = await readJournalSegments(segments(null, line(1) + line(2).slice(0, 5)), 0);
    expect(replay).toMatchObject({ sealed: false, lineCount: 1, tornBytes: 5 });
  });
});

describe('Journal', () => {
  it.skipIf(!existsSync('/dev/full'))('rejects the writes of a failed batch and refuses later ones', async () => {
    // /dev/full fails every write with ENOSPC, like a full disk.
    const journal = await Journal.open('/dev/full', 0, { bytes: 0, entries: 0 });
    try {
      const first = journal.append(1, '{"seq":1}');
      const second = journal.append(2, '{"seq":2}');
      await journal.writePending();
      await expect(first).rejects.toThrow(/state journal \/dev\/full could not be written \(.*ENOSPC/);
      await expect(second).rejects.toThrow(/could not be written/);
      expect(journal.broken).not.toBeNull();
      await expect(journal.append(3, '{"seq":3}')).rejects.toThrow(/writes are refused until restart/);
      await expect(journal.barrier()).rejects.toThrow(/could not be written/);
    } finally {
      await journal.close();
    }
  });
});
