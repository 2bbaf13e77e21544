import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { RunLogLine } from '../../src/domain/run-log-line.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { createRunLogBook, type RunLogBookDeps } from '../../src/runlogs/run-log-book.js';
import { RUN_LOG_COLLECTION, RUN_LOG_INDEX_COLLECTION } from '../../src/runlogs/run-log-docs.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { tempDir } from '../support/config.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';

const API_KEY = 'svc-operator-key-9f3a';
const WEBHOOK_SECRET = 'hook-secret-abc123';

describe.each([
  ['file', (dir: string) => join(dir, 'state.json')],
  ['sqlite', (dir: string) => `sql:${join(dir, 'state.sqlite')}`],
])('run log book over the %s store', (_kind, target) => {
  let store: StateStore;
  let writes: string[];
  afterEach(async () => {
    await store?.close();
  });

  async function setup(overrides: Partial<RunLogBookDeps> = {}) {
    const inner = openStateStore(target(tempDir()));
    await inner.open();
    writes = [];
    // Counts the documents written, to show lines are buffered, not written one by one.
    store = Object.assign(Object.create(inner) as StateStore, {
      putDoc: (collection: string, id: string, doc: Record<string, unknown>) => {
        writes.push(`${collection}/${id}`);
        return inner.putDoc(collection, id, doc);
      },
      close: () => inner.close(),
    });
    const book = createRunLogBook({ store, clock: systemClock, logger: pino({ level: 'silent' }), secrets: [API_KEY, WEBHOOK_SECRET], ...overrides });
    return book;
  }

  async function addRun(overrides: Partial<RunRecord> = {}): Promise<RunRecord> {
    const run = makeRun(overrides);
    return (await store.mutateRun(run.runId, insertIfAbsent(run))).after!;
  }

  it('keeps stderr and log lines per attempt, written at the end, not once per line', async () => {
    const book = await setup({ limits: { flushIntervalMs: 60_000 } });
    const run = await addRun({ runId: 'r1' });
    const log = book.open(run);
    for (let i = 0; i < 50; i++) log.stderr(`stderr line ${i}\n`);
    log.write('log', 'info handler said hello');
    expect(writes).toEqual([]);
    // Not yet in the store, but this instance answers from memory.
    expect((await book.read('r1'))!.attempts[0]!.lines).toHaveLength(51);
    await log.close();
    expect(writes).toEqual([`${RUN_LOG_INDEX_COLLECTION}/r1#1`, `${RUN_LOG_COLLECTION}/r1#1`]);
    const logs = await book.read('r1');
    expect(logs).toMatchObject({ runId: 'r1', attempts: [{ attemptId: 'r1#1', truncated: 0 }] });
    expect(logs!.attempts[0]!.lines[0]).toMatchObject({ stream: 'stderr', line: 'stderr line 0' });
    expect(logs!.attempts[0]!.lines.at(-1)).toMatchObject({ stream: 'log', line: 'info handler said hello' });
  });

  it('flushes on its timer while the attempt runs, once per tick, and the last lines at close', async () => {
    const book = await setup({ limits: { flushIntervalMs: 50 } });
    const run = await addRun({ runId: 'r2' });
    const log = book.open(run);
    for (let i = 0; i < 20; i++) log.stderr(`early ${i}\n`);
    await new Promise((r) => setTimeout(r, 200));
    expect(writes.filter((w) => w.startsWith(RUN_LOG_COLLECTION))).toHaveLength(1);
    const stored = await store.getDoc(RUN_LOG_COLLECTION, 'r2#1');
    expect((stored!.lines as unknown[]).length).toBe(20);
    log.stderr('late line without a break');
    await log.close();
    const final = await store.getDoc(RUN_LOG_COLLECTION, 'r2#1');
    expect((final!.lines as Array<{ line: string }>).at(-1)!.line).toBe('late line without a break');
  });

  it('never keeps the service keys, the webhook secret or token patterns, in answers, in the store or live', async () => {
    const book = await setup();
    const live: RunLogLine[] = [];
    book.subscribe((line) => live.push(line));
    const run = await addRun({ runId: 'r3' });
    const log = book.open(run);
    const bearer = 'Bearer eyJhbGciOiJIUzI1NiJ9.c2VjcmV0LXBheWxvYWQ.abc123XYZ';
    log.stderr(`calling with key ${API_KEY} and ${bearer}\n`);
    log.stderr(`webhook ${WEBHOOK_SECRET}; token=ghp_16C7e42F292c6912E7710c838347Ae178B4a\n`);
    log.write('log', `warn retry apiKey=${API_KEY}`);
    await log.close();
    const answer = JSON.stringify(await book.read('r3'));
    const stored = JSON.stringify(await store.listDocEntries(RUN_LOG_COLLECTION));
    for (const text of [answer, stored, JSON.stringify(live)]) {
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain(WEBHOOK_SECRET);
      expect(text).not.toContain('eyJhbGciOiJIUzI1NiJ9');
      expect(text).not.toContain('ghp_16C7e42F292c6912E7710c838347Ae178B4a');
      expect(text).toContain('[redacted:');
    }
    expect(live).toHaveLength(3);
    expect(live[0]).toMatchObject({ runId: 'r3', attemptId: 'r3#1', stream: 'stderr' });
  });

  it('drops the start of a key left at the end of a line cut for length', async () => {
    const book = await setup({ limits: { pendingMaxBytes: 40 } });
    const run = await addRun({ runId: 'r3b' });
    const log = book.open(run);
    // The key starts at byte 30 and the bound cuts at byte 40: its first 10 characters are held.
    log.stderr(`${'x'.repeat(30)}${API_KEY} and more\n`);
    await log.close();
    const [only] = (await book.read('r3b'))!.attempts[0]!.lines;
    expect(only!.line).not.toContain(API_KEY.slice(0, 10));
    expect(only!.line).toMatch(/^x{30}\[redacted:secret\]…\[\+\d+ bytes\]$/);
  });

  it('bounds each attempt and counts the lines dropped from its front', async () => {
    const book = await setup({ limits: { maxLines: 5, maxBytes: 1_000_000 } });
    const run = await addRun({ runId: 'r4' });
    const log = book.open(run);
    for (let i = 0; i < 12; i++) log.stderr(`n${i}\n`);
    await log.close();
    const [attempt] = (await book.read('r4'))!.attempts;
    expect(attempt!.truncated).toBe(7);
    expect(attempt!.lines.map((l) => l.line)).toEqual(['n7', 'n8', 'n9', 'n10', 'n11']);
  });

  it('lists each attempt of a retried run, oldest first, and keeps only the newest attempts', async () => {
    const book = await setup({ limits: { maxAttemptsPerRun: 2 } });
    let run = await addRun({ runId: 'r5' });
    for (let attempt = 1; attempt <= 3; attempt++) {
      run = (await store.mutateRun('r5', (cur) => ({ ...cur!, attempt })))!.after!;
      const log = book.open(run);
      log.stderr(`attempt ${attempt}\n`);
      await log.close();
    }
    const logs = await book.read('r5');
    expect(logs!.attempts.map((a) => [a.attemptId, a.lines[0]!.line])).toEqual([
      ['r5#2', 'attempt 2'],
      ['r5#3', 'attempt 3'],
    ]);
    // The third attempt removed the first one's log from the store.
    expect(await store.getDoc(RUN_LOG_COLLECTION, 'r5#1')).toBeNull();
    expect(await store.getDoc(RUN_LOG_INDEX_COLLECTION, 'r5#1')).toBeNull();
  });

  it('answers null for an unknown run and no attempts for a run that printed nothing', async () => {
    const book = await setup();
    expect(await book.read('nope')).toBeNull();
    const run = await addRun({ runId: 'quiet' });
    const log = book.open(run);
    log.stderr('\n\n');
    await log.close();
    expect(await book.read('quiet')).toEqual({ runId: 'quiet', attempts: [] });
    expect(writes).toEqual([]);
  });

  it("does not show an earlier run's logs under a new run with the same id", async () => {
    const book = await setup();
    const first = await addRun({ runId: 'same', taskId: 'task-old' });
    const log = book.open(first);
    log.stderr('old run\n');
    await log.close();
    await store.mutateRun('same', (cur) => ({ ...cur!, status: 'success', queueState: null }));
    await store.pruneRuns(0);
    await addRun({ runId: 'same', taskId: 'task-new' });
    expect(await book.read('same')).toEqual({ runId: 'same', attempts: [] });
    expect(await book.sweep()).toBe(1);
    expect(await store.listDocEntries(RUN_LOG_INDEX_COLLECTION)).toEqual([]);
  });

  it('a listener that throws does not stop the others or the log', async () => {
    const book = await setup();
    const seen: string[] = [];
    book.subscribe(() => {
      throw new Error('broken listener');
    });
    const stop = book.subscribe((line) => seen.push(line.line));
    const run = await addRun({ runId: 'r6' });
    const log = book.open(run);
    log.stderr('one\n');
    stop();
    log.stderr('two\n');
    await log.close();
    expect(seen).toEqual(['one']);
    expect((await book.read('r6'))!.attempts[0]!.lines.map((l) => l.line)).toEqual(['one', 'two']);
  });
});

describe('run log retention sweep', () => {
  let store: StateStore;
  afterEach(async () => {
    await store?.close();
  });

  it('removes the logs of pruned runs and keeps those of runs still there', async () => {
    store = openStateStore(`sql:${join(tempDir(), 'state.sqlite')}`);
    await store.open();
    const book = createRunLogBook({ store, clock: systemClock, logger: pino({ level: 'silent' }), secrets: [] });
    const runs: RunRecord[] = [];
    for (let i = 0; i < 6; i++) {
      const run = makeRun({ runId: `p${i}` });
      runs.push((await store.mutateRun(run.runId, insertIfAbsent(run))).after!);
    }
    for (const run of runs) {
      const log = book.open(run);
      log.stderr(`${run.runId} says hi\n`);
      await log.close();
    }
    // p0..p3 finish, p1 stays running (older than kept finished runs), p5 pending.
    for (const id of ['p0', 'p2', 'p3', 'p4']) await store.mutateRun(id, (cur) => ({ ...cur!, status: 'success', queueState: null }));
    await store.mutateRun('p1', (cur) => ({ ...cur!, status: 'running', queueState: null }));
    expect(await store.pruneRuns(4)).toBe(2); // p0, p2
    expect(await book.sweep()).toBe(2);
    expect(await book.read('p0')).toBeNull();
    const left = (await store.listDocEntries(RUN_LOG_COLLECTION)).map((e) => e.id).sort();
    expect(left).toEqual(['p1#1', 'p3#1', 'p4#1', 'p5#1']);
    expect((await store.listDocEntries(RUN_LOG_INDEX_COLLECTION)).map((e) => e.id).sort()).toEqual(left);
    expect((await book.read('p3'))!.attempts[0]!.lines[0]!.line).toBe('p3 says hi');
    // Nothing more to remove: a second pass changes nothing.
    expect(await book.sweep()).toBe(0);
  });
});
