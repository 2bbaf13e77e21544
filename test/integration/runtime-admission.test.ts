import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import type { ServiceProcess } from '../support/service-process.js';

describe('task admission over HTTP', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    ({ service, api, base } = await startRuntimeService({ concurrency: 4 }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('admits a new key with 202 queued, then suppresses the duplicate with 200 and a reason', async () => {
    const first = await api.trigger('summarize-content', { idempotencyKey: 'adm-1', content: 'alpha beta' });
    expect(first.status).toBe(202);
    expect(first.body).toMatchObject({ status: 'queued', runId: 'adm-1', type: 'summarize-content' });
    expect(first.body.taskId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number.isNaN(Date.parse(first.body.createdAt))).toBe(false);

    const second = await api.trigger('summarize-content', { idempotencyKey: 'adm-1', content: 'other' });
    expect(second.status).toBe(200);
    expect(second.body.status).toBe('duplicate-suppressed');
    expect(second.body.runId).toBe('adm-1');
    expect(second.body.taskId).toBe(first.body.taskId);
    expect(['pending', 'running', 'success']).toContain(second.body.existingStatus);
    expect(second.body.reason).toBe(`duplicate-${second.body.existingStatus}`);

    const run = await waitForTerminal(api, 'adm-1');
    expect(run.status).toBe('success');
    const afterDone = await api.trigger('summarize-content', { idempotencyKey: 'adm-1', content: 'again' });
    expect(afterDone.body).toMatchObject({ status: 'duplicate-suppressed', existingStatus: 'success', reason: 'duplicate-success' });

    const mismatch = await api.trigger('doc-sync', { idempotencyKey: 'adm-1' });
    expect(mismatch.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'duplicate-type-mismatch' });
  });

  it('uses the task id as run id when no idempotency key is given', async () => {
    const res = await api.trigger('summarize-content', { content: 'no key here' });
    expect(res.status).toBe(202);
    expect(res.body.runId).toBe(res.body.taskId);
    await waitForTerminal(api, res.body.runId);
  });

  it('executes exactly once under 200 concurrent identical triggers', async () => {
    const log = join(base, 'concurrent.jsonl');
    writeFileSync(log, '');
    const payload = { idempotencyKey: 'concurrent-1', content: 'same work', log, sleepMs: 50 };
    const replies = await Promise.all(Array.from({ length: 200 }, () => api.trigger('summarize-content', payload)));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s === 202)).toHaveLength(1);
    expect(statuses.filter((s) => s === 200)).toHaveLength(199);
    expect(new Set(replies.map((r) => r.body.taskId)).size).toBe(1);
    const run = await waitForTerminal(api, 'concurrent-1');
    expect(run.status).toBe('success');
    const starts = readFileSync(log, 'utf8').split('\n').filter((l) => l.includes('"start"'));
    expect(starts).toHaveLength(1);
    expect(run.queueAttempts.filter((a: { state: string }) => a.state === 'running')).toHaveLength(1);
  });

  it('records the run with workflow, accounting and the agent contract', async () => {
    const res = await api.trigger('summarize-content', { idempotencyKey: 'view-1', content: 'Quarterly report text.' });
    const run = await waitForTerminal(api, res.body.runId);
    expect(run.queueAttempts.map((a: { state: string }) => a.state)).toEqual(['admitted', 'running', 'success']);
    expect(run.queueAttempts[0].attemptId).toBe('view-1#1');
    expect(run.events.map((e: { name: string }) => e.name)).toEqual(['admitted', 'started', 'succeeded']);
    expect(run.workflow).toMatchObject({ stage: 'completed', graphStatus: 'completed', awaitingApproval: false, retryScheduled: false });
    expect(run.workflow.nodeCount).toBe(run.workflowGraph.nodes.length);
    expect(run.accounting).toMatchObject({ metered: false, costUsd: 0 });
    expect(run.accounting.note).toMatch(/unmetered/);
    expect(run.cost).toMatchObject({ usd: 0, metered: false });
    expect(run.operatorSummary).toBe('fixture completed');
    expect(run.specialistContract).toMatchObject({ role: 'summarization-agent', status: 'completed' });
    expect(run.resultSummary.keys).toContain('summary');
  });

  it('refuses bad input with documented errors and admits nothing', async () => {
    const internal = await api.trigger('heartbeat', {});
    expect(internal.status).toBe(400);
    expect(internal.body.error.code).toBe('task_type_internal');
    const unknown = await api.trigger('no-such-task', {});
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_request');
    const reserved = await api.trigger('summarize-content', { content: 'x', approvedFromTaskId: 'abc' });
    expect(reserved.body.error.code).toBe('reserved_field');
    const replayKey = await api.trigger('summarize-content', { content: 'x', idempotencyKey: 'approval-replay:abc' });
    expect(replayKey.body.error.code).toBe('reserved_field');
    const wrongType = await api.trigger('summarize-content', { content: 42, idempotencyKey: 'bad-type-1' });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.code).toBe('invalid_request');
    expect(JSON.stringify(wrongType.body.error.details)).toContain('content');
    expect((await api.run('bad-type-1')).status).toBe(404);
    const viewer = await api.trigger('summarize-content', { content: 'x' }, TEST_KEYS.viewer);
    expect(viewer.status).toBe(403);
  });

  it('refuses task scopes outside the workspace before any work', async () => {
    for (const scope of ['../outside', '/etc', 'a/../../b']) {
      const res = await api.trigger('security-audit', { type: 'scan', scope, idempotencyKey: `scope-${scope.length}` });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('scope_outside_workspace');
    }
    const list = await api.get('/api/tasks/runs?type=security-audit');
    expect(list.body.total).toBe(0);
  });

  it('hides internal runs unless includeInternal=true', async () => {
    const startup = await waitFor(async () => {
      const res = await api.get('/api/tasks/runs?includeInternal=true&type=startup');
      return res.body.total >= 1 ? res.body.items[0] : undefined;
    });
    expect(startup.internal).toBe(true);
    expect((await waitForTerminal(api, startup.runId)).status).toBe('success');
    const visible = await api.get('/api/tasks/runs?limit=200');
    expect(visible.body.items.some((r: { type: string }) => r.type === 'startup')).toBe(false);
    const bad = await api.get('/api/tasks/runs?includeInternal=yes');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect((await api.get('/api/tasks/runs/does-not-exist')).status).toBe(404);
  });

  it('filters and pages the runs list', async () => {
    const res = await api.get('/api/tasks/runs?type=summarize-content&status=success&limit=2&offset=0');
    expect(res.status).toBe(200);
    expect(res.body.limit).toBe(2);
    expect(res.body.items.length).toBeLessThanOrEqual(2);
    for (const item of res.body.items) expect(item).toMatchObject({ type: 'summarize-content', status: 'success' });
    expect((await api.get('/api/tasks/runs?limit=0')).status).toBe(400);
    expect((await api.get('/api/tasks/runs?cursor=not-a-cursor')).status).toBe(400);
    const all = await api.get('/api/tasks/runs?limit=200');
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { items: Array<{ runId: string }>; nextCursor: string | null } } = await api.get(
        `/api/tasks/runs?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...page.body.items.map((r) => r.runId));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all.body.items.map((r: { runId: string }) => r.runId));
    expect((await api.get('/api/tasks/runs?limit=201')).status).toBe(400);
  });

  it('serves the catalog with labels and telemetry overlays', async () => {
    const res = await api.get('/api/tasks/catalog');
    expect(res.status).toBe(200);
    const types = res.body.tasks.map((t: { type: string }) => t.type);
    expect(types).toContain('summarize-content');
    expect(types).not.toContain('heartbeat');
    const summarize = res.body.tasks.find((t: { type: string }) => t.type === 'summarize-content');
    expect(summarize.telemetryOverlay.totalRuns).toBeGreaterThan(0);
    expect(summarize.operationalStatus).toBe('confirmed-working');
  });
});
