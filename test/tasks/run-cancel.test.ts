import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { DomainError } from '../../src/domain/errors.js';
import type { Identity } from '../../src/domain/identity.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import type { StateStore } from '../../src/store/types.js';
import { finalizeAttempt } from '../../src/runtime/finalize.js';
import { bindHandler, type TaskHandler } from '../../src/runtime/handler-types.js';
import { recoverInterruptedRuns } from '../../src/runtime/recovery.js';
import { createRunCancel, finalizeCancelledAttempt } from '../../src/runtime/run-cancel.js';
import { Runner, type RunnerDeps } from '../../src/runtime/runner.js';
import { isOwnedAttempt } from '../../src/runtime/run-transitions.js';
import type { WorkerSpawner } from '../../src/workers/spawn-worker.js';
import { tempDir, testConfig } from '../support/config.js';
import { finalizeDepsOver } from '../support/finalize.js';
import { testLaneRegistry } from '../support/lanes.js';
import { insertIfAbsent, makeRun, markRunning } from '../support/runs.js';

const OPS: Identity = { actor: 'ops', role: 'operator', apiKeyLabel: 'ops:v2', apiKeyExpiresAt: null };
const logger = pino({ level: 'silent' });
const invalidator = { invalidate: async () => {} };

const stores: StateStore[] = [];
const runners: Runner[] = [];
afterEach(async () => {
  for (const runner of runners.splice(0)) await runner.stop(0);
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(): Promise<{ store: FileStateStore; dir: string }> {
  const dir = tempDir('run-cancel-');
  const store = new FileStateStore(join(dir, 'state.json'));
  await store.open();
  stores.push(store);
  return { store, dir };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A runner over `store` whose doc-sync handler is `handler`; `shared` makes it treat the store as shared by instances. */
function runnerOver(store: StateStore, dir: string, handler: TaskHandler<unknown>, finished: RunRecord[] = [], shared = false) {
  const view: StateStore = shared ? Object.assign(Object.create(store) as StateStore, { exclusive: false }) : store;
  const deps = {
    config: { ...testConfig({}, dir), concurrency: 2, typeConcurrency: {}, retry: { maxAttempts: 3, baseDelayMs: 0, maxDelayMs: 0 } },
    store: view,
    clock: systemClock,
    logger,
    invalidator,
    admit: async () => {
      throw new Error('no follow-ups in these tests');
    },
    ownerId: 'owner-here',
    leaseMs: 60_000,
    pollIntervalMs: 60_000,
    onRunFinished: async (run: RunRecord) => {
      finished.push(run);
    },
    lanes: testLaneRegistry([{ type: 'doc-sync', handler: bindHandler(handler, null) }]),
    spawner: { run: async () => ({ ok: false, result: null, durationMs: 0, failure: 'spawn-error' }) } as unknown as WorkerSpawner,
  } as RunnerDeps;
  const runner = new Runner(deps);
  runners.push(runner);
  return runner;
}

/** A handler that works until its run's signal aborts, then answers as a handler honouring it would. */
const honoursAbort: TaskHandler<unknown> = (_state, _config, input) =>
  new Promise((resolve) => {
    const stop = () => resolve({ status: 'error', error: 'aborted' });
    if (input.signal.aborted) stop();
    else input.signal.addEventListener('abort', stop);
  });

async function insert(store: StateStore, run: RunRecord): Promise<void> {
  await store.mutateRun(run.runId, insertIfAbsent(run));
}

describe('cancelling runs', () => {
  it('answers 404 for an unknown run and 409 for a finished one, changing nothing', async () => {
    const { store } = await openStore();
    const cancels = createRunCancel({ store, clock: systemClock, logger, invalidator, stopLocal: () => false, onRunFinished: async () => {} });
    await expect(cancels.cancel('missing', null, OPS)).rejects.toMatchObject({ code: 'not_found' });
    await insert(store, makeRun({ runId: 'done', taskId: 'done', status: 'success', queueState: null }));
    const refused = await cancels.cancel('done', null, OPS).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'conflict' });
    expect((await store.getRun('done'))?.status).toBe('success');
  });

  it('ends a pending run and tells the listeners; a second cancel answers the same without a write', async () => {
    const { store } = await openStore();
    const told: RunRecord[] = [];
    const stopped: string[] = [];
    const cancels = createRunCancel({
      store,
      clock: systemClock,
      logger,
      invalidator,
      stopLocal: (runId) => (stopped.push(runId), true),
      onRunFinished: async (run) => {
        told.push(run);
      },
    });
    await insert(store, makeRun({ runId: 'p1', taskId: 'p1' }));
    expect(await cancels.cancel('p1', 'why', OPS)).toEqual({ runId: 'p1', status: 'cancelled' });
    const stored = await store.getRun('p1');
    expect(stored?.status).toBe('cancelled');
    expect(told.map((r) => r.runId)).toEqual(['p1']);
    expect(stopped).toEqual([]);
    expect(await cancels.cancel('p1', 'again', OPS)).toEqual({ runId: 'p1', status: 'cancelled' });
    expect((await store.getRun('p1'))?.updatedAt).toBe(stored?.updatedAt);
    expect(told).toHaveLength(1);
  });

  it('stops an in-process handler through its signal: the run ends cancelled with signal abort, never retried', async () => {
    const { store, dir } = await openStore();
    const finished: RunRecord[] = [];
    let aborted = 0;
    let started = 0;
    const runner = runnerOver(store, dir, (state, config, input) => {
      started += 1;
      input.signal.addEventListener('abort', () => (aborted += 1));
      return honoursAbort(state, config, input);
    }, finished);
    const cancels = createRunCancel({ store, clock: systemClock, logger, invalidator, stopLocal: (id) => runner.stopCancelled(id), onRunFinished: async () => {} });
    await insert(store, makeRun({ runId: 'h1', taskId: 'h1' }));
    runner.start();
    await until(() => started === 1, 'the handler to start');

    expect(await cancels.cancel('h1', null, OPS)).toEqual({ runId: 'h1', status: 'cancelling' });
    await until(async () => (await store.getRun('h1'))?.status === 'cancelled', 'the run to be cancelled');
    const run = (await store.getRun('h1'))!;
    expect(aborted).toBe(1);
    expect(run.cancellation).toMatchObject({ requestedBy: 'ops', signal: 'abort' });
    expect(run.cancellation?.completedAt).toEqual(expect.any(String));
    expect(run.retry).toBeNull();
    expect(run.claim).toBeNull();
    // The finish is told after the final write commits: a loaded machine can read the run first.
    await until(() => finished.length > 0, 'the finish to be told');
    expect(finished.map((r) => `${r.runId}:${r.status}`)).toEqual(['h1:cancelled']);
  });

  it('notices a cancel recorded by another instance on a shared store within a second and stops its attempt', async () => {
    const { store, dir } = await openStore();
    const runner = runnerOver(store, dir, honoursAbort, [], true);
    await insert(store, makeRun({ runId: 's1', taskId: 's1' }));
    runner.start();
    await until(async () => (await store.getRun('s1'))?.status === 'running', 'the run to start');
    // The other instance's request: only the store learns of it.
    const elsewhere = createRunCancel({ store, clock: systemClock, logger, invalidator, stopLocal: () => false, onRunFinished: async () => {} });
    const asked = Date.now();
    expect((await elsewhere.cancel('s1', 'from b', OPS)).status).toBe('cancelling');
    await until(async () => (await store.getRun('s1'))?.status === 'cancelled', 'the owner to cancel the run', 3000);
    expect(Date.now() - asked).toBeLessThan(2000);
    expect((await store.getRun('s1'))?.cancellation?.signal).toBe('abort');
  });

  it('never writes a cancelled attempt that is no longer its owner\'s', async () => {
    const { store } = await openStore();
    const run = markRunning(makeRun({ runId: 'o1', taskId: 'o1' }), 'owner-a');
    await insert(store, { ...run, cancellation: { requestedAt: '2026-01-01T00:00:00.000Z', requestedBy: 'ops', reason: null, completedAt: null, signal: null } });
    // Another instance took the run over under a later attempt.
    await store.mutateRun('o1', (current) => (current ? { ...current, attempt: 2, claim: { ownerId: 'owner-b', leaseUntil: '2099-01-01T00:00:00.000Z' } } : null));
    const deps = { store, clock: systemClock, logger, invalidator, onRunFinished: async () => {} };
    const written = await finalizeCancelledAttempt(deps, run, 'SIGTERM', (c): c is RunRecord => isOwnedAttempt(c, 'owner-a', 1));
    expect(written).toBeNull();
    expect((await store.getRun('o1'))).toMatchObject({ status: 'running', attempt: 2 });
  });

  it('ends cancelled an attempt that finished by itself after the cancel was requested, even a successful one', async () => {
    const { store } = await openStore();
    const run = markRunning(makeRun({ runId: 'f1', taskId: 'f1' }), 'owner-a');
    await insert(store, { ...run, cancellation: { requestedAt: '2026-01-01T00:00:00.000Z', requestedBy: 'ops', reason: null, completedAt: null, signal: null } });
    const deps = finalizeDepsOver(store);
    const outcome = { ok: true, result: { done: true }, error: null, failureReason: null, transient: false, durationMs: 5, operatorSummary: null, recommendedNextActions: null, specialistContract: null };
    const written = await finalizeAttempt(deps, run, true, outcome, (c): c is RunRecord => isOwnedAttempt(c, 'owner-a', 1));
    expect(written).toMatchObject({ status: 'cancelled', result: { done: true }, retry: null });
    expect(written?.cancellation).toMatchObject({ signal: null, completedAt: expect.any(String) });
  });
});

describe('restart recovery of a run whose cancel was requested', () => {
  it('writes it cancelled instead of running it again, also when its worker left a result', async () => {
    const { store, dir } = await openStore();
    const requested = { requestedAt: '2026-01-01T00:00:00.000Z', requestedBy: 'ops', reason: 'stop', completedAt: null, signal: null };
    await insert(store, { ...markRunning(makeRun({ runId: 'c1', taskId: 'c1' }), 'dead-owner'), cancellation: requested });
    await insert(store, markRunning(makeRun({ runId: 'c2', taskId: 'c2' }), 'dead-owner'));
    const told: RunRecord[] = [];
    const counts = await recoverInterruptedRuns(
      finalizeDepsOver(store, {
        onRunFinished: async (run) => {
          told.push(run);
        },
      }),
    );
    expect(counts).toMatchObject({ cancelled: 1, requeued: 1 });
    const cancelled = (await store.getRun('c1'))!;
    expect(cancelled).toMatchObject({ status: 'cancelled', attempt: 1, queueState: null, claim: null });
    expect(cancelled.cancellation).toMatchObject({ reason: 'stop', signal: null, completedAt: expect.any(String) });
    // The run without a cancel is re-admitted as before.
    expect((await store.getRun('c2'))).toMatchObject({ status: 'pending', attempt: 2 });
    expect(told.map((r) => r.runId)).toEqual(['c1']);
    void dir;
  });
});
