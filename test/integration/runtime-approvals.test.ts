import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import type { ServiceProcess } from '../support/service-process.js';

describe('approvals', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    ({ service, api, base } = await startRuntimeService());
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('holds a default-gated task, replays it on approval under approval-replay:<task_id>', async () => {
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'deploy-1' });
    expect(held.status).toBe(202);
    const taskId: string = held.body.taskId;

    const heldRun = await api.run('deploy-1');
    expect(heldRun.body.status).toBe('pending');
    expect(heldRun.body.approval).toMatchObject({ required: true, status: 'pending' });
    expect(heldRun.body.workflow).toMatchObject({ awaitingApproval: true, blockedStage: 'approval' });
    expect(heldRun.body.queueAttempts.map((a: { state: string }) => a.state)).toEqual(['admitted', 'awaiting-approval']);

    const pendingForViewer = await api.get('/api/approvals/pending', TEST_KEYS.viewer);
    expect(pendingForViewer.status).toBe(403);
    const pending = await api.get('/api/approvals/pending', TEST_KEYS.operator);
    expect(pending.status).toBe(200);
    const item = pending.body.pending.find((p: { taskId: string }) => p.taskId === taskId);
    expect(item.impact).toMatchObject({ riskLevel: 'high', dependencyClass: expect.any(String) });
    expect(item.impact.approvalReason).toMatch(/approval-gated/);
    expect(item.payloadPreview).toEqual({ keyCount: 2, keys: ['agentName', 'idempotencyKey'], internalKeyCount: 0 });

    const decision = await api.post(`/api/approvals/${taskId}/decision`, { decision: 'approved', note: 'ship it' });
    expect(decision.status).toBe(200);
    expect(decision.body).toMatchObject({ status: 'ok', replayRunId: `approval-replay:${taskId}` });
    expect(decision.body.approval).toMatchObject({ status: 'approved', decidedBy: 'ops', note: 'ship it' });

    const closed = await api.run('deploy-1');
    expect(closed.body.status).toBe('success');
    expect(closed.body.approval).toMatchObject({ status: 'approved', replayRunId: `approval-replay:${taskId}` });

    const replay = await waitForTerminal(api, `approval-replay:${taskId}`);
    expect(replay.status).toBe('success');
    expect(replay.approvedFromTaskId).toBe(taskId);
    expect(replay.approval.required).toBe(false);
    // Results name the deployment inside the workspace (default deployBaseDir <workspace>/deployments).
    const deployPath: string = replay.result.result.deployPath;
    expect(deployPath).toMatch(/^deployments\/summarization-agent-/);
    const deployDir = join(base, 'workspace', deployPath);
    expect(existsSync(join(deployDir, 'DEPLOYMENT.json'))).toBe(true);
    expect(JSON.parse(readFileSync(join(deployDir, 'DEPLOYMENT.json'), 'utf8')).agentName).toBe('summarization-agent');

    const again = await api.post(`/api/approvals/${taskId}/decision`, { decision: 'approved' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('conflict');
    const after = await api.get('/api/approvals/pending', TEST_KEYS.operator);
    expect(after.body.pending.some((p: { taskId: string }) => p.taskId === taskId)).toBe(false);
  });

  it('fails the held run on rejection and never runs it', async () => {
    const log = join(base, 'rejected.jsonl');
    const held = await api.trigger('summarize-content', { content: 'needs review', requiresApproval: true, log, idempotencyKey: 'reject-1' });
    expect(held.status).toBe(202);
    const res = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'rejected', note: 'not now' });
    expect(res.status).toBe(200);
    expect(res.body.approval.status).toBe('rejected');
    expect(res.body.replayRunId).toBeUndefined();
    const run = await api.run('reject-1');
    expect(run.body).toMatchObject({ status: 'failed', failureReason: 'approval_rejected' });
    expect(run.body.workflow.stopClassification).toBe('approval-rejected');
    expect(existsSync(log)).toBe(false);
    const dup = await api.trigger('summarize-content', { content: 'needs review', idempotencyKey: 'reject-1' });
    expect(dup.body).toMatchObject({ status: 'duplicate-suppressed', reason: 'duplicate-failed' });
  });

  it('answers 404 for an unknown approval and 400 for a bad decision', async () => {
    expect((await api.post('/api/approvals/00000000-0000-0000-0000-000000000000/decision', { decision: 'approved' })).status).toBe(404);
    const held = await api.trigger('summarize-content', { content: 'x', requiresApproval: true });
    const bad = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    const viewer = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved' }, TEST_KEYS.viewer);
    expect(viewer.status).toBe(403);
    const stillPending = await waitFor(async () => (await api.run(held.body.runId)).body);
    expect(stillPending.approval.status).toBe('pending');
  });

  it('lets exactly one of two concurrent decisions win', async () => {
    const held = await api.trigger('summarize-content', { content: 'race', requiresApproval: true });
    const [a, b] = await Promise.all([
      api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved' }),
      api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'rejected' }),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
  });
});
