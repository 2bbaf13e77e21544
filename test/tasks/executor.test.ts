import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { getCatalogEntry } from '../../src/tasks/catalog.js';
import { executeRun, type ExecutorDeps } from '../../src/tasks/executor.js';
import type { TaskHandler } from '../../src/tasks/handler-types.js';
import { newRunRecord } from '../../src/tasks/run-transitions.js';
import { testConfig, tempDir } from '../support/config.js';

describe('executeRun with in-process handlers', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function run(handler: TaskHandler) {
    const base = tempDir();
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const deps: ExecutorDeps = {
      config: testConfig({}, base),
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      handlers: { 'doc-sync': handler },
      spawner: { run: async () => Promise.reject(new Error('no workers here')) },
      serviceStartedAt: new Date(),
      queueDepth: async () => 0,
      ownerId: 'executor-test',
    };
    const record = newRunRecord({
      runId: 'r',
      taskId: 't',
      type: 'doc-sync',
      internal: false,
      payload: {},
      source: 'api',
      requestedBy: 'ops',
      now: new Date(),
      approvalRequired: false,
      approvalReason: null,
      approvedFromTaskId: null,
    });
    return executeRun(deps, getCatalogEntry('doc-sync')!, record, new AbortController().signal);
  }

  it('turns a thrown exception into TaskResult status error, as a transient failure', async () => {
    const outcome = await run(async () => {
      throw new Error('disk on fire');
    });
    expect(outcome).toMatchObject({ ok: false, failureReason: 'handler-exception', error: 'disk on fire', transient: true });
    expect(outcome.result).toEqual({ status: 'error', error: 'disk on fire' });
  });

  it('passes (state, config) and keeps the handler result, state update and follow-ups on success', async () => {
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

  it('fails a handler that reports status error, without applying its state update', async () => {
    const outcome = await run(async () => ({ status: 'error', error: 'feed unreachable', stateUpdate: (s) => s }));
    expect(outcome).toMatchObject({ ok: false, failureReason: 'handler-error', error: 'feed unreachable' });
    expect(outcome.stateUpdate).toBeUndefined();
  });
});
