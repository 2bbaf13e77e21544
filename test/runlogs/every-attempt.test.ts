import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { createRunLogBook } from '../../src/runlogs/run-log-book.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { cancelBeforeStart } from '../../src/runtime/run-cancellation.js';
import { admitRetry, markFailed, markRunning } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { admittedRun } from '../support/runs.js';

const now = () => new Date();
const stores: FileStateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function setup() {
  const store = new FileStateStore(join(tempDir('every-attempt-'), 'state.json'));
  await store.open();
  stores.push(store);
  const book = createRunLogBook({ store, clock: systemClock, logger: pino({ level: 'silent' }), secrets: [] });
  const save = async (run: RunRecord) => (await store.mutateRun(run.runId, (current) => (current ? { ...run, seq: current.seq } : run))).after!;
  return { store, book, save };
}

/** The run after its current attempt failed with a retry planned, and the retry admitted (queued, not started). */
function failedAndRequeued(run: RunRecord): RunRecord {
  const failed = markFailed(run, now(), {
    error: 'boom',
    failureReason: 'worker-crash',
    retry: { attempt: run.attempt, retryLimit: 3, backoffMs: 0, nextRetryAt: now().toISOString(), lastError: 'boom' },
  });
  return admitRetry(failed as RunRecord & { retry: NonNullable<RunRecord['retry']> }, now(), 'test');
}

describe('the run log lists every attempt that ran', () => {
  it('lists an attempt that ran and printed nothing with no lines, beside one that printed', async () => {
    const { book, save } = await setup();
    let run = await save(markRunning(admittedRun({ runId: 'quiet', type: 'doc-sync' }), 'owner-1', new Date(Date.now() + 60_000), now()));
    await book.open(run).close();
    run = await save(markRunning(failedAndRequeued(run), 'owner-1', new Date(Date.now() + 60_000), now()));
    const second = book.open(run);
    second.stderr('the second attempt spoke\n');
    await second.close();
    const logs = await book.read('quiet');
    expect(logs?.attempts.map((a) => ({ attemptId: a.attemptId, lines: a.lines.map((l) => l.line), truncated: a.truncated }))).toEqual([
      { attemptId: 'quiet#1', lines: [], truncated: 0 },
      { attemptId: 'quiet#2', lines: ['the second attempt spoke'], truncated: 0 },
    ]);
  });

  it('lists an attempt that runs now and has printed nothing yet, also from an instance that does not run it', async () => {
    const { book, save } = await setup();
    await save(markRunning(admittedRun({ runId: 'running-quiet', type: 'doc-sync' }), 'owner-elsewhere', new Date(Date.now() + 60_000), now()));
    expect((await book.read('running-quiet'))?.attempts).toEqual([{ attemptId: 'running-quiet#1', lines: [], truncated: 0 }]);
  });

  it('does not list an attempt that never ran: queued, held for approval, cancelled before it started, or the retry not yet started', async () => {
    const { book, save } = await setup();
    await save(admittedRun({ runId: 'queued', type: 'doc-sync' }));
    await save(admittedRun({ runId: 'held', type: 'doc-sync', approvalRequired: true, approvalReason: 'test' }));
    await save(cancelBeforeStart(admittedRun({ runId: 'cancelled', type: 'doc-sync' }), now(), { actor: 'ops', reason: null }));
    for (const runId of ['queued', 'held', 'cancelled']) expect((await book.read(runId))?.attempts, runId).toEqual([]);

    const ran = await save(markRunning(admittedRun({ runId: 'retry-waits', type: 'doc-sync' }), 'owner-1', new Date(Date.now() + 60_000), now()));
    await save(failedAndRequeued(ran));
    expect((await book.read('retry-waits'))?.attempts).toEqual([{ attemptId: 'retry-waits#1', lines: [], truncated: 0 }]);
  });
});
