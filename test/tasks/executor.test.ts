import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { communityResponseLane } from '../../src/lanes/community-response/index.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY } from '../../src/worker-sdk/community-response.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { getCatalogEntry } from '../../src/runtime/catalog.js';
import { executeRun, type ExecutorDeps } from '../../src/runtime/executor.js';
import { bindHandler, bindStateHandler, type TaskHandler } from '../../src/runtime/handler-types.js';
import type { BoundTaskHandler } from '../../src/runtime/lanes.js';
import { admittedRun } from '../support/runs.js';
import { testConfig, tempDir } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';

describe('executeRun with in-process handlers', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function run(handler: TaskHandler<{ docsPath: string }>) {
    return runBound((context) => bindHandler(handler, context));
  }

  /** Every state read the executor makes, by kind. */
  const reads: string[] = [];

  async function runBound(bind: (context: { docsPath: string }) => BoundTaskHandler) {
    const base = tempDir();
    const opened = openStateStore(join(base, 'state.json'));
    store = opened;
    await opened.open();
    reads.length = 0;
    const counted = Object.assign(Object.create(opened) as StateStore, {
      getState: () => (reads.push('whole'), opened.getState()),
      getStateWithoutHistory: () => (reads.push('without history'), opened.getStateWithoutHistory()),
    });
    const deps: ExecutorDeps = {
      store: counted,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      lanes: testLaneRegistry([{ type: 'doc-sync', handler: bind({ docsPath: testConfig({}, base).docsPath }) }]),
      spawner: { run: async () => Promise.reject(new Error('no workers here')) },
      ownerId: 'executor-test',
    };
    const record = admittedRun({ runId: 'r', taskId: 't', type: 'doc-sync' });
    return executeRun(deps, getCatalogEntry('doc-sync')!, record, new AbortController().signal);
  }

  it('turns a thrown exception into TaskResult status error, as a transient failure', async () => {
    const outcome = await run(async () => {
      throw new Error('disk on fire');
    });
    expect(outcome).toMatchObject({ ok: false, failureReason: 'handler-exception', error: 'disk on fire', transient: true });
    expect(outcome.result).toEqual({ status: 'error', error: 'disk on fire' });
  });

  it('passes (state, its bound context) and keeps the handler result, state update and follow-ups on success', async () => {
    const outcome = await run(async (state, config) => ({
      status: 'completed',
      result: { tasksSeen: state.tasksProcessed, docsPath: config.docsPath },
      stateUpdate: (s) => ({ ...s, notes: 'updated' }),
      followUps: [{ type: 'doc-sync', payload: { idempotencyKey: 'next' } }],
    }));
    expect(outcome.ok).toBe(true);
    expect(outcome.result).toMatchObject({ status: 'completed', result: { tasksSeen: 0 } });
    expect(outcome.stateUpdate).toBeTypeOf('function');
    expect(outcome.followUps).toHaveLength(1);
  });

  it('reads the whole document for a handler that may read the history, and the document without it for one bound not to', async () => {
    await run(async (state) => ({ status: 'completed', result: { history: state.taskHistory.length } }));
    expect(reads).toEqual(['whole']);
    const outcome = await runBound((context) =>
      bindStateHandler(async (state, config) => ({ status: 'completed', result: { tasksSeen: state.tasksProcessed, docsPath: config.docsPath } }), context),
    );
    expect(reads).toEqual(['without history']);
    expect(outcome.result).toMatchObject({ status: 'completed', result: { tasksSeen: 0 } });
  });

  it('fails a handler that reports status error, without applying its state update', async () => {
    const outcome = await run(async () => ({ status: 'error', error: 'feed unreachable', stateUpdate: (s) => s }));
    expect(outcome).toMatchObject({ ok: false, failureReason: 'handler-error', error: 'feed unreachable' });
    expect(outcome.stateUpdate).toBeUndefined();
  });
});

describe('executeRun of community-response: the pre-spawn coordination step', () => {
  function setup(spawnOk: boolean) {
    const base = tempDir();
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
    const config = testConfig({}, base);
    const spawned: Array<Record<string, unknown>> = [];
    const store = openStateStore(join(base, 'state.json'));
    const lane = communityResponseLane({ coordination, clock: systemClock, config, store, invalidator: { invalidate: async () => undefined } });
    const deps: ExecutorDeps = {
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      lanes: testLaneRegistry([lane]),
      spawner: {
        run: async (request) => {
          spawned.push(request.payload);
          return spawnOk
            ? { ok: true, result: { success: true }, durationMs: 1, exitCode: 0, signal: null, pid: 1 }
            : { ok: false, failure: 'crash', error: 'helper threw', result: { success: false, error: 'helper threw' }, durationMs: 1, exitCode: 1, signal: null, pid: 1 };
        },
      } as ExecutorDeps['spawner'],
      ownerId: 'executor-test',
    };
    const runOf = (runId: string) =>
      admittedRun({ runId, taskId: `t-${runId}`, type: 'community-response', payload: { items: [{ postId: 'p1', title: 'Rotate keys', selectedForDraft: true }] } });
    const exec = (runId: string) => executeRun(deps, getCatalogEntry('community-response')!, runOf(runId), new AbortController().signal);
    return { exec, spawned };
  }

  it('hands the claim outcome to the worker and blocks another run of the same item without spawning', async () => {
    const { exec, spawned } = setup(true);
    expect((await exec('r1')).ok).toBe(true);
    expect(spawned[0]![COMMUNITY_RESPONSE_PAYLOAD_KEY]).toMatchObject({ items: [{ itemKey: 'post:p1', gate: 'claimed' }], provider: null });

    const blocked = await exec('r2');
    expect(spawned).toHaveLength(1);
    expect(blocked).toMatchObject({
      ok: false,
      failureReason: 'coordination-blocked',
      transient: false,
      coordinationBlocked: expect.stringContaining('already drafted by another run'),
      specialistContract: { status: 'refused' },
    });
  });

  it('gives the claims back when the worker fails (a helper exception fails the run), so the item can be drafted later', async () => {
    const failing = setup(false);
    const outcome = await failing.exec('r1');
    expect(outcome).toMatchObject({ ok: false, failureReason: 'worker-crash', error: 'helper threw' });
    const again = await failing.exec('r2');
    expect(again.failureReason).toBe('worker-crash');
    expect(failing.spawned).toHaveLength(2);
  });
});
