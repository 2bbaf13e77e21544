import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { createSecretRedactor, KNOWN_SECRET_MARKER } from '../../src/redaction/known-secrets.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { createAdmission } from '../../src/runtime/admission.js';
import type { ExecutionOutcome } from '../../src/runtime/executor.js';
import { finalizeAttempt } from '../../src/runtime/finalize.js';
import { isOwnedAttempt } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { finalizeDepsOver } from '../support/finalize.js';
import { insertIfAbsent, makeRun, markRunning } from '../support/runs.js';

const SECRETS = ['svc-operator-key-7f21', 'hook-secret-0c9d2e', 'db-password-51aa', 'sk-provider-key-88e0'];
const redact = createSecretRedactor(SECRETS);
const invalidator = { invalidate: async () => {} };

/** Arrays nested `levels` deep around a 1, built without recursion. */
function nestedArrays(levels: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = [value];
  return value;
}

const stores: FileStateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function openStore(): Promise<FileStateStore> {
  const store = new FileStateStore(join(tempDir('stored-records-'), 'state.json'));
  await store.open();
  stores.push(store);
  return store;
}

function admissionOver(store: FileStateStore) {
  return createAdmission({ store, clock: systemClock, invalidator, onReady: () => undefined, telemetryRetention: 100, redact });
}

const finalizeDeps = (store: FileStateStore) => finalizeDepsOver(store, { redact });

async function runningRun(store: FileStateStore, runId: string): Promise<RunRecord> {
  const run = markRunning(makeRun({ runId, taskId: runId }), 'owner-a');
  await store.mutateRun(runId, insertIfAbsent(run));
  return run;
}

const outcomeOf = (fields: Partial<ExecutionOutcome>): ExecutionOutcome => ({
  ok: true,
  result: null,
  error: null,
  failureReason: null,
  transient: false,
  durationMs: 3,
  operatorSummary: null,
  recommendedNextActions: null,
  specialistContract: null,
  ...fields,
});

describe('admission keeps a payload within the bounds and without the service secrets', () => {
  it('refuses a payload nested past the depth bound from any caller (not only a route), storing nothing', async () => {
    const store = await openStore();
    const admit = admissionOver(store);
    const refused = admit({ type: 'doc-sync', payload: { deep: nestedArrays(10_000), idempotencyKey: 'deep-1' }, source: 'system', requestedBy: 'test' });
    await expect(refused).rejects.toMatchObject({ code: 'invalid_request', message: 'The payload nests deeper than 64 levels of arrays and objects' });
    expect(await store.getRun('deep-1')).toBeNull();
  });

  it('replaces each secret in the stored payload, in values and keys, and leaves the rest as sent', async () => {
    const store = await openStore();
    const admit = admissionOver(store);
    const payload = { content: `use ${SECRETS[0]} and ${SECRETS[1]}`, nested: { [SECRETS[2]!]: [SECRETS[3]] }, idempotencyKey: 'secret-1', count: 3 };
    const outcome = await admit({ type: 'doc-sync', payload, source: 'api', requestedBy: 'test' });
    expect(outcome.kind).toBe('admitted');
    const stored = await store.getRun('secret-1');
    expect(stored?.payload).toEqual({
      content: `use ${KNOWN_SECRET_MARKER} and ${KNOWN_SECRET_MARKER}`,
      nested: { [KNOWN_SECRET_MARKER]: [KNOWN_SECRET_MARKER] },
      idempotencyKey: 'secret-1',
      count: 3,
    });
  });
});

describe('finalize keeps what an attempt left within the bounds and without the service secrets', () => {
  it('fails the run with a clear reason, and keeps nothing of a result nested past the depth bound', async () => {
    const store = await openStore();
    const run = await runningRun(store, 'deep-result');
    const outcome = outcomeOf({ result: { rows: nestedArrays(10_000) }, operatorSummary: 'done' });
    const written = await finalizeAttempt(finalizeDeps(store), run, true, outcome, (c): c is RunRecord => isOwnedAttempt(c, 'owner-a', 1));
    expect(written).toMatchObject({
      status: 'failed',
      result: null,
      retry: null,
      failureReason: 'result-too-deep',
      error: "The attempt's result nests deeper than 64 levels of arrays and objects; it was not stored",
    });
    expect((await store.getRun('deep-result'))?.status).toBe('failed');
  });

  it('replaces each secret in the result, the error, the summary, the actions and the events and task record made from them', async () => {
    const store = await openStore();
    const run = await runningRun(store, 'secret-result');
    const outcome = outcomeOf({
      ok: false,
      result: { echoed: SECRETS[0], [SECRETS[1]!]: 'as a key' },
      error: `worker said ${SECRETS[2]}`,
      failureReason: 'worker-failure',
      operatorSummary: `summary with ${SECRETS[3]}`,
      recommendedNextActions: [`rotate ${SECRETS[0]}`],
      specialistContract: { role: 'x', workflowStage: 'y', deliverable: SECRETS[1]!, status: 'refused', refusalReason: null, escalationReason: null },
    });
    await finalizeAttempt(finalizeDeps(store), run, false, outcome, (c): c is RunRecord => isOwnedAttempt(c, 'owner-a', 1));
    const stored = await store.getRun('secret-result');
    expect(stored?.status).toBe('failed');
    expect(stored?.error).toBe(`worker said ${KNOWN_SECRET_MARKER}`);
    const kept = JSON.stringify({ run: stored, state: await store.getState() });
    for (const secret of SECRETS) expect(kept).not.toContain(secret);
    expect(stored?.events.find((e) => e.name === 'failed')?.detail).toBe(`worker said ${KNOWN_SECRET_MARKER}`);
  });
});
