import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { createRerun, MAX_RERUN_LINKS, rerunPayload } from '../../src/runtime/rerun.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { tempDir } from '../support/config.js';
import { OPERATOR } from '../support/identities.js';
import { makeRun } from '../support/runs.js';

describe('rerun payload', () => {
  it("drops the original's __ keys and idempotency key, then applies the changes one level deep (null removes)", () => {
    const original = { content: 'a', mode: 'success', idempotencyKey: 'orig', __incidentId: 'inc-1', nested: { keep: 1 } };
    expect(rerunPayload(original, {})).toEqual({ content: 'a', mode: 'success', nested: { keep: 1 } });
    expect(rerunPayload(original, { payload: { content: 'b', mode: null, nested: { other: 2 } }, idempotencyKey: 'k2' })).toEqual({
      content: 'b',
      nested: { other: 2 },
      idempotencyKey: 'k2',
    });
    expect(rerunPayload(original, { payload: { idempotencyKey: 'k3' } })).toMatchObject({ idempotencyKey: 'k3' });
    expect(() => rerunPayload(original, { payload: { idempotencyKey: 'k3' }, idempotencyKey: 'k4' })).toThrow(/differ/);
  });
});

describe('rerun', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function setup() {
    const base = tempDir('rerun-');
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const invalidator = { invalidate: async () => undefined };
    const admit = createAdmission({ store, clock: { now: () => new Date('2026-03-01T10:00:00Z') }, invalidator, onReady: () => undefined, telemetryRetention: 100 });
    const rerun = createRerun({ store, admit, checkTrigger: createTriggerCheck(join(base, 'workspace')), invalidator });
    return { store, rerun, admit };
  }

  const codeOf = (promise: Promise<unknown>) => promise.then(() => null, (err: unknown) => (err instanceof DomainError ? err.code : 'thrown'));

  it('answers 400 for a run whose type the catalog no longer knows, 404 for an unknown run', async () => {
    const { store, rerun } = await setup();
    await store.mutateRun('retired-1', () => makeRun({ runId: 'retired-1', type: 'retired-lane', status: 'success', queueState: null }));
    const err = await rerun('retired-1', {}, OPERATOR).catch((e: unknown) => e as DomainError);
    expect(err).toMatchObject({ code: 'invalid_request', message: expect.stringMatching(/'retired-lane', which the catalog no longer knows/) });
    expect(await codeOf(rerun('nobody', {}, OPERATOR))).toBe('not_found');
  });

  it(`keeps the newest ${MAX_RERUN_LINKS} rerun ids on the original, and links each rerun once`, async () => {
    const { store, rerun } = await setup();
    await store.mutateRun('orig', () => makeRun({ runId: 'orig', type: 'doc-sync', status: 'success', queueState: null, payload: { idempotencyKey: 'orig' } }));
    const ids: string[] = [];
    for (let i = 0; i < MAX_RERUN_LINKS + 2; i += 1) ids.push((await rerun('orig', { idempotencyKey: `again-${i}` }, OPERATOR)).run.runId);
    await rerun('orig', { idempotencyKey: 'again-0' }, OPERATOR);
    const original = (await store.getRun('orig'))!;
    expect(original.reruns).toEqual(ids.slice(-MAX_RERUN_LINKS));
    expect((await store.getRun('again-0'))!).toMatchObject({ rerunOf: 'orig', source: 'rerun', requestedBy: 'ops' });
  });

  it('refuses an idempotency key the service reserves, naming its prefix, and stores nothing', async () => {
    const { store, rerun } = await setup();
    await store.mutateRun('orig', () => makeRun({ runId: 'orig', type: 'doc-sync', status: 'success', queueState: null }));
    for (const key of ['schedule:nightly:2026-03-01T10:00:00.000Z', 'incident:inc-1:e1:remediation:1', 'flow:f1:build', 'approval-replay:t1']) {
      const err = await rerun('orig', { idempotencyKey: key }, OPERATOR).catch((e: unknown) => e as DomainError);
      expect(err, key).toMatchObject({ code: 'reserved_field', message: expect.stringContaining(`starts with '${key.slice(0, key.indexOf(':') + 1)}'`) });
      expect(await store.getRun(key)).toBeNull();
    }
    expect((await store.getRun('orig'))!.reruns).toBeUndefined();
  });

  it('repairs a link a crash left unwritten when the same rerun is asked again', async () => {
    const { store, rerun, admit } = await setup();
    await store.mutateRun('orig', () => makeRun({ runId: 'orig', type: 'doc-sync', status: 'failed', queueState: null }));
    // The rerun was admitted, then the service died before the original listed it.
    await admit({ type: 'doc-sync', payload: { idempotencyKey: 'lost-link' }, source: 'rerun', requestedBy: 'ops', rerunOf: 'orig' });
    expect((await store.getRun('orig'))!.reruns).toBeUndefined();
    const again = await rerun('orig', { idempotencyKey: 'lost-link' }, OPERATOR);
    expect(again.kind).toBe('duplicate');
    expect((await store.getRun('orig'))!.reruns).toEqual(['lost-link']);
  });
});
