import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdmission } from '../../src/runtime/admission.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { markFailed, markRunning } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';

describe('admission', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function setup() {
    store = openStateStore(join(tempDir(), 'state.json'));
    await store.open();
    const invalidated: string[][] = [];
    let readyCalls = 0;
    const now = new Date('2026-11-22T12:00:00Z');
    const admit = createAdmission({
      store,
      clock: { now: () => now },
      invalidator: { invalidate: async (tags) => void invalidated.push(tags) },
      onReady: () => void (readyCalls += 1),
      telemetryRetention: 100,
    });
    return { store, admit, invalidated, readyCalls: () => readyCalls, now };
  }

  it('emits accepted and queued telemetry for a new key only, never for a duplicate', async () => {
    const { store, admit, invalidated, readyCalls } = await setup();
    const first = await admit({ type: 'doc-sync', payload: { idempotencyKey: 'k1' }, source: 'api', requestedBy: 'ops' });
    expect(first.kind).toBe('admitted');
    const dup = await admit({ type: 'doc-sync', payload: { idempotencyKey: 'k1' }, source: 'api', requestedBy: 'ops' });
    expect(dup).toMatchObject({ kind: 'duplicate', reason: 'duplicate-pending' });
    const telemetry = await store.listAppended('telemetry', { limit: 10 });
    expect(telemetry.items.map((t) => t.event).sort()).toEqual(['accepted', 'queued']);
    expect(telemetry.items.every((t) => t.runId === 'k1' && t.attemptId === 'k1#1')).toBe(true);
    expect(readyCalls()).toBe(1);
    expect(invalidated).toHaveLength(1);
    expect(invalidated[0]).toEqual(expect.arrayContaining(['runs', 'run:k1', 'approvals', 'catalog']));
  });

  it('holds approval-gated types and indexes them, but not their approval replays', async () => {
    const { store, admit, readyCalls } = await setup();
    const held = await admit({ type: 'agent-deploy', payload: { agentName: 'x' }, source: 'api', requestedBy: 'ops' });
    expect(held.run).toMatchObject({ queueState: 'held', approval: { required: true, status: 'pending' } });
    expect(await store.getDoc('approval-index', held.run.taskId)).toMatchObject({ runId: held.run.runId });
    expect(readyCalls()).toBe(0);
    const replay = await admit({
      type: 'agent-deploy',
      payload: { agentName: 'x' },
      source: 'approval-replay',
      requestedBy: 'ops',
      forceRunId: `approval-replay:${held.run.taskId}`,
      approvedFromTaskId: held.run.taskId,
    });
    expect(replay.run).toMatchObject({ queueState: 'ready', approval: { required: false }, approvedFromTaskId: held.run.taskId });
  });

  it('re-admits a retrying run under a new attempt id, and only while its retry record matches', async () => {
    const { store, admit, now } = await setup();
    await admit({ type: 'doc-sync', payload: { idempotencyKey: 'r1' }, source: 'api', requestedBy: 'ops' });
    await store.mutateRun('r1', (run) =>
      markFailed(markRunning(run!, 'owner', new Date(now.getTime() + 1000), now), now, {
        error: 'boom',
        failureReason: 'handler-error',
        retry: { attempt: 1, retryLimit: 3, backoffMs: 10, nextRetryAt: now.toISOString(), lastError: 'boom' },
      }),
    );
    const mismatch = await admit({ type: 'rss-sweep', payload: { idempotencyKey: 'r1' }, source: 'api', requestedBy: 'ops' });
    expect(mismatch).toMatchObject({ kind: 'duplicate', reason: 'duplicate-type-mismatch' });
    const retry = await admit({ type: 'doc-sync', payload: { idempotencyKey: 'r1' }, source: 'retry', requestedBy: 'retry-recovery' });
    expect(retry.kind).toBe('retry-admitted');
    expect(retry.run).toMatchObject({ status: 'pending', queueState: 'ready', attempt: 2, retry: null });
    expect(retry.run.queueAttempts.filter((a) => a.state === 'admitted').map((a) => a.attemptId)).toEqual(['r1#1', 'r1#2']);
    const telemetry = await store.listAppended('telemetry', { limit: 10 });
    expect(telemetry.total).toBe(2);
  });
});
