import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { pidAlive } from '../support/execution-log.js';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { attemptGone, BUILT_WORKER_SDK_DIR, groupGone, killAttempt, startsOf, waitForChild, type ChildRecord } from '../support/process-groups.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/** Worker runs never time out here: they end by cancel (or the service's death) only. */
const NO_TIMEOUT = { laneTimeoutsMs: { 'summarize-content': 600_000 } };
/** A failed attempt is retried, but not before the test has cancelled it. */
const SLOW_RETRY = { retry: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 } };

const cancel = (running: RuntimeService, runId: string, body: unknown = {}, key: string = TEST_KEYS.operator) =>
  running.api.post(`/api/tasks/runs/${encodeURIComponent(runId)}/cancel`, body, key);

async function waitForStatus(running: RuntimeService, runId: string, status: string, timeoutMs = 15_000) {
  return waitFor(
    async () => {
      const res = await running.api.run(runId);
      return res.body?.status === status ? res.body : undefined;
    },
    timeoutMs,
    `run ${runId} to be ${status}`,
  );
}

describe('cancel over HTTP', () => {
  let running: RuntimeService;
  let log: string;
  const children: ChildRecord[] = [];

  beforeAll(async () => {
    const base = tempDir('run-cancel-');
    log = join(base, 'executions.jsonl');
    writeFileSync(log, '');
    running = await startRuntimeService({ concurrency: 1, cancelGraceMs: 400, ...NO_TIMEOUT, ...SLOW_RETRY }, base);
  });
  afterAll(async () => {
    await running?.service.kill();
    for (const child of children) killAttempt(child);
  });

  it('ends a pending run without starting it, and a second cancel answers the same and changes nothing', async () => {
    // The one slot is taken by a worker that works until stopped; the next run waits.
    const busy = await running.api.trigger('summarize-content', { content: 'x', mode: 'spawn-child', log, idempotencyKey: 'cancel-busy' });
    expect(busy.status).toBe(202);
    children.push(await waitForChild(log, 'cancel-busy'));
    const waiting = await running.api.trigger('summarize-content', { content: 'y', log, idempotencyKey: 'cancel-pending' });
    expect(waiting.status).toBe(202);
    expect((await running.api.run('cancel-pending')).body.status).toBe('pending');

    expect((await cancel(running, 'cancel-pending', {}, TEST_KEYS.viewer)).status).toBe(403);
    const first = await cancel(running, 'cancel-pending', { reason: 'not needed any more' });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ runId: 'cancel-pending', status: 'cancelled' });

    const run = (await running.api.run('cancel-pending')).body;
    expect(run).toMatchObject({ status: 'cancelled', retry: null });
    expect(run.cancellation).toMatchObject({ requestedBy: 'ops', reason: 'not needed any more', signal: null });
    expect(run.cancellation.completedAt).toEqual(expect.any(String));
    expect(run.events.map((e: { name: string }) => e.name)).toEqual(expect.arrayContaining(['cancel-requested', 'cancelled']));
    expect(run.workflow).toMatchObject({ stage: 'cancelled', stopClassification: 'cancelled' });

    const again = await cancel(running, 'cancel-pending', { reason: 'twice' });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ runId: 'cancel-pending', status: 'cancelled' });
    const unchanged = (await running.api.run('cancel-pending')).body;
    expect(unchanged.updatedAt).toBe(run.updatedAt);
    expect(unchanged.cancellation.reason).toBe('not needed any more');

    // It never started, also once the slot is free again.
    expect((await cancel(running, 'cancel-busy')).status).toBe(202);
    await waitForStatus(running, 'cancel-busy', 'cancelled');
    await new Promise((r) => setTimeout(r, 1200));
    expect(startsOf(log, 'cancel-pending')).toBe(0);
    expect((await running.api.run('cancel-pending')).body.status).toBe('cancelled');

    // Filters and counts know the word.
    const listed = await running.api.get('/api/tasks/runs?status=cancelled&limit=200');
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { runId: string }) => r.runId)).toEqual(expect.arrayContaining(['cancel-pending', 'cancel-busy']));
    const catalog = await running.api.get('/api/tasks/catalog');
    const summarize = catalog.body.tasks.find((t: { type: string }) => t.type === 'summarize-content');
    expect(summarize.telemetryOverlay.cancelledCount).toBeGreaterThanOrEqual(2);
  }, 60_000);

  it('closes a held run\'s approval as cancelled and takes it off the pending list', async () => {
    const held = await running.api.trigger('summarize-content', { content: 'z', requiresApproval: true, idempotencyKey: 'cancel-held' });
    expect(held.status).toBe(202);
    const taskId: string = held.body.taskId;
    const pendingBefore = await running.api.get('/api/approvals/pending', TEST_KEYS.operator);
    expect(pendingBefore.body.pending.map((p: { taskId: string }) => p.taskId)).toContain(taskId);

    const res = await cancel(running, 'cancel-held', { reason: 'wrong payload' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ runId: 'cancel-held', status: 'cancelled' });
    const run = (await running.api.run('cancel-held')).body;
    expect(run.status).toBe('cancelled');
    expect(run.approval).toMatchObject({ status: 'cancelled', decidedBy: 'ops', note: 'wrong payload' });

    const pendingAfter = await running.api.get('/api/approvals/pending', TEST_KEYS.operator);
    expect(pendingAfter.status).toBe(200);
    expect(pendingAfter.body.pending.map((p: { taskId: string }) => p.taskId)).not.toContain(taskId);
    const decision = await running.api.post(`/api/approvals/${taskId}/decision`, { decision: 'approved' });
    expect(decision.status).toBe(409);
  });

  it('ends a retrying run, which the retry scan then never admits again', async () => {
    const res = await running.api.trigger('summarize-content', { content: 'r', mode: 'crash', log, idempotencyKey: 'cancel-retrying' });
    expect(res.status).toBe(202);
    const retrying = await waitForStatus(running, 'cancel-retrying', 'retrying');
    expect(retrying.retry).not.toBeNull();

    const cancelled = await cancel(running, 'cancel-retrying');
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.status).toBe('cancelled');
    const run = (await running.api.run('cancel-retrying')).body;
    expect(run).toMatchObject({ status: 'cancelled', retry: null, attempt: 1 });
    // The same key is a duplicate of the cancelled run, not a retry of it.
    const dup = await running.api.trigger('summarize-content', { content: 'r', mode: 'crash', log, idempotencyKey: 'cancel-retrying' });
    expect(dup.body).toMatchObject({ status: 'duplicate-suppressed', existingStatus: 'cancelled', reason: 'duplicate-cancelled' });
    expect(startsOf(log, 'cancel-retrying')).toBe(1);
  });

  it('stops a running worker that ignores SIGTERM, and its child, and leaves no process of its group', async () => {
    const res = await running.api.trigger('summarize-content', {
      content: 'w',
      mode: 'spawn-child',
      trapTerm: true,
      childTrapsTerm: true,
      log,
      idempotencyKey: 'cancel-stubborn',
    });
    expect(res.status).toBe(202);
    const child = await waitForChild(log, 'cancel-stubborn');
    children.push(child);
    expect(pidAlive(child.pid)).toBe(true);

    const first = await cancel(running, 'cancel-stubborn', { reason: 'stop it' });
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ runId: 'cancel-stubborn', status: 'cancelling' });
    const during = (await running.api.run('cancel-stubborn')).body;
    expect(during.status).toBe('running');
    expect(during.cancellation).toMatchObject({ requestedBy: 'ops', reason: 'stop it', completedAt: null });
    expect((await cancel(running, 'cancel-stubborn')).body).toEqual({ runId: 'cancel-stubborn', status: 'cancelling' });

    const run = await waitForStatus(running, 'cancel-stubborn', 'cancelled');
    // The run is written cancelled only once nothing of its group lives.
    expect(attemptGone(child)).toBe(true);
    expect(run.cancellation).toMatchObject({ signal: 'SIGKILL', requestedBy: 'ops' });
    expect(run.cancellation.completedAt).toEqual(expect.any(String));
    expect(run.events.map((e: { name: string }) => e.name)).toContain('cancelled');
    // Not failed, not retried.
    await new Promise((r) => setTimeout(r, 1200));
    const later = (await running.api.run('cancel-stubborn')).body;
    expect(later).toMatchObject({ status: 'cancelled', attempt: 1, retry: null });
    expect(startsOf(log, 'cancel-stubborn')).toBe(1);
    expect((await cancel(running, 'cancel-stubborn')).body).toEqual({ runId: 'cancel-stubborn', status: 'cancelled' });
  }, 60_000);

  it('stops a worker that honours SIGTERM with SIGTERM alone, the group its project command leads included', async () => {
    const res = await running.api.trigger('summarize-content', {
      content: 'p',
      mode: 'spawn-child',
      childVia: 'project-command',
      sdkDir: BUILT_WORKER_SDK_DIR,
      log,
      idempotencyKey: 'cancel-polite',
    });
    expect(res.status).toBe(202);
    const child = await waitForChild(log, 'cancel-polite');
    children.push(child);
    // The project command leads a group of its own, outside the worker's.
    expect(groupGone(child.pid)).toBe(false);
    const asked = Date.now();
    expect((await cancel(running, 'cancel-polite')).status).toBe(202);
    const run = await waitForStatus(running, 'cancel-polite', 'cancelled');
    expect(Date.now() - asked).toBeLessThan(3000);
    expect(attemptGone(child)).toBe(true);
    expect(run.cancellation.signal).toBe('SIGTERM');
  }, 60_000);

  it('answers 409 for a finished run and 404 for an unknown one', async () => {
    const res = await running.api.trigger('summarize-content', { content: 'done', idempotencyKey: 'cancel-finished' });
    expect(res.status).toBe(202);
    expect((await waitForTerminal(running.api, 'cancel-finished')).status).toBe('success');
    const conflict = await cancel(running, 'cancel-finished');
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'conflict' });
    expect((await running.api.run('cancel-finished')).body.status).toBe('success');
    expect((await cancel(running, 'no-such-run')).status).toBe(404);
    expect((await cancel(running, 'cancel-finished', { reason: 'x'.repeat(1001) })).status).toBe(400);
    // The route is in the OpenAPI document, with the new status word in the runs filter.
    const openapi = await running.api.get('/api/openapi.json', null);
    expect(openapi.body.paths['/api/tasks/runs/{runId}/cancel'].post.responses).toHaveProperty('202');
    expect(JSON.stringify(openapi.body.paths['/api/tasks/runs'].get.parameters)).toContain('cancelled');
  }, 30_000);
});

describe('cancel of an in-process handler', () => {
  let running: RuntimeService;
  let target: Server;
  let requests = 0;

  beforeAll(async () => {
    // A digest target that takes the request and never answers: the handler waits on it.
    target = createServer(() => {
      requests += 1;
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const port = (target.address() as AddressInfo).port;
    running = await startRuntimeService({ digestTargetUrl: `http://127.0.0.1:${port}/digest`, digestTargetAllowPrivateHosts: true, ...SLOW_RETRY });
  });
  afterAll(async () => {
    await running?.service.kill();
    target?.closeAllConnections();
    await new Promise((resolve) => target?.close(resolve));
  });

  it('aborts the handler\'s signal; the run ends cancelled long before the handler\'s own timeout', async () => {
    const res = await running.api.trigger('send-digest', { idempotencyKey: 'cancel-handler' });
    expect(res.status).toBe(202);
    await waitFor(async () => (requests > 0 ? true : undefined), 10_000, 'the digest request to arrive');
    expect((await running.api.run('cancel-handler')).body.status).toBe('running');
    const asked = Date.now();
    expect((await cancel(running, 'cancel-handler')).body).toEqual({ runId: 'cancel-handler', status: 'cancelling' });
    const run = await waitForStatus(running, 'cancel-handler', 'cancelled', 8000);
    // The outbound timeout is 10 s: only the aborted signal ends it this soon.
    expect(Date.now() - asked).toBeLessThan(3000);
    expect(run.cancellation.signal).toBe('abort');
    expect(run.retry).toBeNull();
  }, 30_000);
});
