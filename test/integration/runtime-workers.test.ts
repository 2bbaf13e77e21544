import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import type { ServiceProcess } from '../support/service-process.js';

describe('worker runs, failures and retries', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    ({ service, api, base } = await startRuntimeService({
      concurrency: 4,
      retry: { maxAttempts: 2, baseDelayMs: 300, maxDelayMs: 1000 },
      // A digest outbox that is a folder (the workspace the service creates): every delivery fails.
      digestTargetFile: 'workspace',
    }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('fails a run whose worker does not report logical success, without retrying it', async () => {
    const res = await api.trigger('summarize-content', { content: 'x', mode: 'logical-failure', idempotencyKey: 'w-logical' });
    const run = await waitForTerminal(api, res.body.runId);
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-logical-failure', retry: null });
    expect(run.specialistContract.status).toBe('refused');
  });

  it('fails a run whose worker prints non-JSON, after its retries', async () => {
    const res = await api.trigger('summarize-content', { content: 'x', mode: 'non-json', idempotencyKey: 'w-nonjson' });
    const run = await waitForTerminal(api, res.body.runId);
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-non-json', attempt: 2 });
  });

  it('kills a worker that runs past its timeout', async () => {
    const res = await api.trigger('summarize-content', { content: 'x', mode: 'timeout', idempotencyKey: 'w-timeout' });
    const run = await waitForTerminal(api, res.body.runId, 20_000);
    expect(run).toMatchObject({ status: 'failed', failureReason: 'worker-timeout' });
    expect(service.output.join('\n')).toContain('agent spawn error');
  });

  it('retries a crashed worker under a new queue attempt until it succeeds', async () => {
    const log = join(base, 'retry.jsonl');
    writeFileSync(log, '');
    const res = await api.trigger('summarize-content', { content: 'x', mode: 'fail-first', log, idempotencyKey: 'w-retry' });
    const retrying = await waitFor(async () => {
      const r = await api.run('w-retry');
      return r.body.status === 'retrying' ? r.body : undefined;
    });
    expect(retrying.retry).toMatchObject({ attempt: 1, retryLimit: 2 });
    expect(retrying.workflow).toMatchObject({ retryScheduled: true, nextRetryAt: retrying.retry.nextRetryAt });
    const run = await waitForTerminal(api, res.body.runId);
    expect(run.status).toBe('success');
    expect(run.attempt).toBe(2);
    const attemptIds = new Set(run.queueAttempts.map((a: { attemptId: string }) => a.attemptId));
    expect(attemptIds).toEqual(new Set(['w-retry#1', 'w-retry#2']));
    expect(run.events.map((e: { name: string }) => e.name)).toContain('retry-admitted');
    expect(readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"start"'))).toHaveLength(2);
  });

  it('keeps serving after a handler error', async () => {
    const res = await api.trigger('send-digest', { idempotencyKey: 'digest-unwritable' });
    const run = await waitForTerminal(api, res.body.runId, 20_000);
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/digest not written to workspace/);
    expect((await api.get('/api/tasks/runs')).status).toBe(200);
  });
});

describe('retry admission through the trigger route', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    // A long backoff keeps the run `retrying`, so only the trigger can re-admit it.
    ({ service, api, base } = await startRuntimeService({ retry: { maxAttempts: 3, baseDelayMs: 600_000, maxDelayMs: 600_000 } }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('admits a retry with a distinct queue-attempt identity when the same key is triggered while retrying', async () => {
    const log = join(base, 'retry.jsonl');
    writeFileSync(log, '');
    const payload = { content: 'x', mode: 'fail-first', log, idempotencyKey: 'manual-retry' };
    const first = await api.trigger('summarize-content', payload);
    expect(first.status).toBe(202);
    await waitFor(async () => ((await api.run('manual-retry')).body.status === 'retrying' ? true : undefined));
    const again = await api.trigger('summarize-content', payload);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ status: 'queued', runId: 'manual-retry', taskId: first.body.taskId });
    const run = await waitForTerminal(api, 'manual-retry');
    expect(run.status).toBe('success');
    expect(run.queueAttempts.filter((a: { state: string }) => a.state === 'admitted').map((a: { attemptId: string }) => a.attemptId)).toEqual([
      'manual-retry#1',
      'manual-retry#2',
    ]);
    const dup = await api.trigger('summarize-content', payload);
    expect(dup.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'duplicate-success' });
  });
});
