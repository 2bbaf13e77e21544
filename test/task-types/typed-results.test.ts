import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/domain/run-record.js';
import { BUILT_IN_TASK_TYPES } from '../../src/lanes/built-in.js';
import { FileStateStore } from '../../src/store/file/file-state-store.js';
import { schemaProblems } from '../../src/task-types/schema-check.js';
import type { ExecutionOutcome } from '../../src/runtime/executor.js';
import { finalizeAttempt } from '../../src/runtime/finalize.js';
import { isOwnedAttempt } from '../../src/runtime/run-transitions.js';
import { tempDir } from '../support/config.js';
import { finalizeDepsOver } from '../support/finalize.js';
import { insertIfAbsent, makeRun, markRunning } from '../support/runs.js';

const stores: FileStateStore[] = [];
afterEach(async () => {
  for (const store of stores.splice(0)) await store.close();
});

async function runningRun(type: string, runId: string): Promise<{ store: FileStateStore; run: RunRecord }> {
  const store = new FileStateStore(join(tempDir('typed-results-'), 'state.json'));
  await store.open();
  stores.push(store);
  const run = markRunning(makeRun({ runId, taskId: runId, type }), 'owner-a');
  await store.mutateRun(runId, insertIfAbsent(run));
  return { store, run };
}

const succeeded = (result: unknown): ExecutionOutcome => ({
  ok: true,
  result,
  error: null,
  failureReason: null,
  transient: false,
  durationMs: 3,
  operatorSummary: 'done',
  recommendedNextActions: [],
  specialistContract: null,
});

const owned = (c: RunRecord | null): c is RunRecord => isOwnedAttempt(c, 'owner-a', 1);

describe('a successful result is checked against its type result schema before it is stored', () => {
  it('ends a malformed worker result failed, invalid_result, naming the fields, storing none of it and never retrying', async () => {
    const { store, run } = await runningRun('security-audit', 'bad-findings');
    const malformed = { success: true, findings: [{ rule: 'aws-key', severity: 'high', file: 'a.env', line: 'three', evidence: 'AKIA…' }] };
    const written = await finalizeAttempt(finalizeDepsOver(store), run, true, succeeded(malformed), owned);
    expect(written).toMatchObject({ status: 'failed', result: null, retry: null, failureReason: 'invalid_result' });
    expect(written?.error).toContain('security-audit result schema');
    expect(written?.error).toContain('/findings/0/line');
    expect((await store.getRun('bad-findings'))?.result).toBeNull();
  });

  it('refuses a worker answer that is not an object at all', async () => {
    const { store, run } = await runningRun('summarize-content', 'not-an-object');
    const written = await finalizeAttempt(finalizeDepsOver(store), run, true, succeeded(['a', 'list']), owned);
    expect(written).toMatchObject({ status: 'failed', failureReason: 'invalid_result' });
  });

  it('checks an in-process handler result inside its {status, result} envelope', async () => {
    const { store, run } = await runningRun('doc-sync', 'handler-bad');
    const written = await finalizeAttempt(finalizeDepsOver(store), run, true, succeeded({ status: 'success', result: 'just words', durationMs: 1 }), owned);
    expect(written).toMatchObject({ status: 'failed', failureReason: 'invalid_result' });
    expect(written?.error).toContain('/result');
  });

  it('stores a conforming result as given', async () => {
    const { store, run } = await runningRun('security-audit', 'good-findings');
    const result = { success: true, findings: [{ rule: 'aws-key', severity: 'high', file: 'a.env', line: null, evidence: 'AKIA…' }], extra: { kept: true } };
    const written = await finalizeAttempt(finalizeDepsOver(store), run, true, succeeded(result), owned);
    expect(written).toMatchObject({ status: 'success', result });
  });

  it('leaves a failed attempt to its own reason (a refusal is not checked as a result)', async () => {
    const { store, run } = await runningRun('security-audit', 'refused');
    const outcome: ExecutionOutcome = { ...succeeded({ success: false, error: 'scope missing' }), ok: false, error: 'scope missing', failureReason: 'refused' };
    const written = await finalizeAttempt(finalizeDepsOver(store), run, false, outcome, owned);
    expect(written).toMatchObject({ status: 'failed', failureReason: 'refused' });
  });
});

describe('every built-in type module', () => {
  it.each(BUILT_IN_TASK_TYPES.map((t) => [t.type, t] as const))('%s: its example payload (when it has one) passes its payload schema and its result schema is an open object', (_type, t) => {
    const example = (t.payloadSchema as { examples?: unknown[] }).examples?.[0];
    if (example !== undefined) expect(schemaProblems(t.payloadSchema, example)).toEqual([]);
    expect(t.resultSchema).toMatchObject({ type: 'object', additionalProperties: true });
    if (t.executor === 'worker') expect(schemaProblems(t.resultSchema, { success: true })).toEqual([]);
  });
});
