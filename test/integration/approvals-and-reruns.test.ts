import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { tempDir } from '../support/config.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';
import type { ServiceProcess } from '../support/service-process.js';

/**
 * Approval policy and reruns against the built service. The operator key's actor is `ops`, the
 * admin key's `admin-user` (test/support/keys.ts).
 */
describe('approval policy and reruns through the service', () => {
  let service: ServiceProcess;
  let api: RuntimeService['api'];
  let base: string;

  beforeAll(async () => {
    ({ service, api, base } = await startRuntimeService({
      approvalPolicy: {
        'summarize-content': { allowSelfApproval: false },
        'agent-deploy': { approverRole: 'admin' },
        // 0.6 s: the service's own expiry sweep (every 5 s) rejects it during the test.
        'system-monitor': { expiresAfterMinutes: 0.01 },
      },
    }));
  });
  afterAll(async () => {
    await service?.kill();
  });

  const decide = (taskId: string, decision: 'approved' | 'rejected', key: string = TEST_KEYS.operator, note?: string) =>
    api.post(`/api/approvals/${taskId}/decision`, { decision, ...(note ? { note } : {}) }, key);

  describe('approvals', () => {
    it('GET /api/approvals/:id returns one approval with its impact, payload, requester, expiry, status and history', async () => {
      const held = await api.trigger('summarize-content', { content: 'review me', requiresApproval: true, idempotencyKey: 'policy-get-1' });
      expect(held.status).toBe(202);
      const taskId: string = held.body.taskId;

      const one = await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator);
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({
        taskId,
        runId: 'policy-get-1',
        type: 'summarize-content',
        status: 'pending',
        requestedBy: 'ops',
        expiresAt: null,
        decisionHistory: [],
        payload: { content: 'review me', requiresApproval: true, idempotencyKey: 'policy-get-1' },
        payloadPreview: { keyCount: 3, internalKeyCount: 0 },
        policy: { approverRole: 'operator', allowSelfApproval: false, onExpiry: 'reject' },
      });
      expect(Date.parse(one.body.requestedAt)).not.toBeNaN();
      expect(one.body.impact).toMatchObject({ approvalReason: 'payload.requiresApproval is true' });

      expect((await api.get(`/api/approvals/${taskId}`, TEST_KEYS.viewer)).status).toBe(403);
      const unknown = await api.get('/api/approvals/00000000-0000-0000-0000-000000000000', TEST_KEYS.operator);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');

      const pending = await api.get('/api/approvals/pending', TEST_KEYS.operator);
      expect(pending.body.pending.find((p: { taskId: string }) => p.taskId === taskId)).toMatchObject({
        requestedBy: 'ops',
        expiresAt: null,
        decisionHistory: [],
      });
      // The run record carries the same approval fields.
      expect((await api.run('policy-get-1')).body.approval).toMatchObject({ requestedBy: 'ops', expiresAt: null, decisionHistory: [] });
    });

    it('refuses self-approval where the policy says so, naming why, and lets another actor decide', async () => {
      const log = join(base, 'self-approval.jsonl');
      const held = await api.trigger('summarize-content', { content: 'mine', requiresApproval: true, log, idempotencyKey: 'policy-self-1' });
      const taskId: string = held.body.taskId;

      const self = await decide(taskId, 'approved');
      expect(self.status).toBe(403);
      expect(self.body.error.code).toBe('forbidden');
      expect(self.body.error.message).toMatch(/ops requested this summarize-content run and approvalPolicy does not allow self-approval/);
      expect((await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator)).body.status).toBe('pending');

      const other = await decide(taskId, 'approved', TEST_KEYS.admin, 'looks fine');
      expect(other.status).toBe(200);
      expect(other.body.approval).toMatchObject({ status: 'approved', decidedBy: 'admin-user', requestedBy: 'ops', expiresAt: null });
      expect(other.body.approval.decisionHistory).toEqual([
        { at: expect.any(String), actor: 'admin-user', decision: 'approved', note: 'looks fine' },
      ]);
      const after = await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator);
      expect(after.body).toMatchObject({ status: 'approved', replayRunId: `approval-replay:${taskId}` });
      expect(after.body.decisionHistory.map((e: { decision: string }) => e.decision)).toEqual(['approved']);
    });

    it('allows self-approval by default', async () => {
      const held = await api.trigger('security-audit', { scope: 'projects/app', requiresApproval: true });
      const self = await decide(held.body.taskId, 'rejected', TEST_KEYS.operator, 'my own call');
      expect(self.status).toBe(200);
      expect(self.body.approval).toMatchObject({ status: 'rejected', decidedBy: 'ops', requestedBy: 'ops' });
    });

    it('answers 403 to an operator where approverRole is admin, and lets an admin decide', async () => {
      const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent' });
      expect(held.status).toBe(202);
      const refused = await decide(held.body.taskId, 'rejected');
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'forbidden', message: expect.stringMatching(/needs the admin role/) });
      const byAdmin = await decide(held.body.taskId, 'rejected', TEST_KEYS.admin);
      expect(byAdmin.status).toBe(200);
      expect(byAdmin.body.approval.decidedBy).toBe('admin-user');
    });

    it('rejects an approval nobody decided before it expired, with reason expired', async () => {
      const held = await api.trigger('system-monitor', { requiresApproval: true, idempotencyKey: 'policy-expiry-1' });
      const taskId: string = held.body.taskId;
      const pending = await api.get(`/api/approvals/${taskId}`, TEST_KEYS.operator);
      expect(Date.parse(pending.body.expiresAt) - Date.parse(pending.body.requestedAt)).toBe(600);
      const run = await waitForTerminal(api, 'policy-expiry-1', 15_000);
      expect(run).toMatchObject({ status: 'failed', failureReason: 'approval_rejected' });
      expect(run.approval).toMatchObject({ status: 'rejected', note: 'expired', decidedBy: 'service' });
      expect(run.approval.decisionHistory).toEqual([{ at: expect.any(String), actor: 'service', decision: 'expired', note: expect.stringMatching(/^no decision by /) }]);
      const late = await decide(taskId, 'approved');
      expect(late.status).toBe(409);
    });
  });

  it('refuses to start with a policy for a task type the catalog does not have', async () => {
    await expect(startRuntimeService({ approvalPolicy: { 'build-refractor': { approverRole: 'admin' } } }, tempDir('policy-typo-'))).rejects.toThrow(
      /fatal: approvalPolicy: "build-refractor" is not a task type of the catalog/,
    );
  });

  describe('reruns', () => {
    const rerun = (runId: string, body: Record<string, unknown> = {}, key: string = TEST_KEYS.operator) =>
      api.post(`/api/tasks/runs/${encodeURIComponent(runId)}/rerun`, body, key);

    it('admits a new run of the same type with the original payload, linked both ways, and a payload override', async () => {
      const log = join(base, 'rerun.jsonl');
      const original = await api.trigger('summarize-content', { content: 'first text', log, sleepMs: 0, idempotencyKey: 'rerun-original-1' });
      expect(original.status).toBe(202);
      await waitForTerminal(api, 'rerun-original-1');

      const fresh = await rerun('rerun-original-1');
      expect(fresh.status).toBe(202);
      expect(fresh.body).toEqual({ status: 'queued', taskId: expect.any(String), runId: expect.any(String), type: 'summarize-content', createdAt: expect.any(String) });
      // Without an idempotency key the rerun gets a fresh run id (the original's key is not copied).
      expect(fresh.body.runId).not.toBe('rerun-original-1');
      expect(fresh.body.runId).toBe(fresh.body.taskId);
      const freshRun = await waitForTerminal(api, fresh.body.runId);
      expect(freshRun).toMatchObject({ status: 'success', source: 'rerun', requestedBy: 'ops', rerunOf: 'rerun-original-1', reruns: [] });
      expect(freshRun.payload).toEqual({ content: 'first text', log, sleepMs: 0 });

      const changed = await rerun('rerun-original-1', { payload: { content: 'second text', sleepMs: null }, idempotencyKey: 'rerun-changed-1' });
      expect(changed.status).toBe(202);
      expect(changed.body).toMatchObject({ status: 'queued', runId: 'rerun-changed-1' });
      const changedRun = await waitForTerminal(api, 'rerun-changed-1');
      expect(changedRun.payload).toEqual({ content: 'second text', log, idempotencyKey: 'rerun-changed-1' });
      expect(changedRun.rerunOf).toBe('rerun-original-1');

      const duplicate = await rerun('rerun-original-1', { payload: { content: 'third text' }, idempotencyKey: 'rerun-changed-1' });
      expect(duplicate.status).toBe(200);
      expect(duplicate.body).toMatchObject({ status: 'duplicate-suppressed', runId: 'rerun-changed-1', reason: 'duplicate-success' });

      const originalRun = (await api.run('rerun-original-1')).body;
      expect(originalRun.reruns).toEqual([fresh.body.runId, 'rerun-changed-1']);
      expect(originalRun.rerunOf).toBeNull();
    });

    it('holds a rerun of an approval-gated type again', async () => {
      const gated = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'rerun-gated-1' });
      expect((await decide(gated.body.taskId, 'rejected', TEST_KEYS.admin)).status).toBe(200);
      const again = await rerun('rerun-gated-1');
      expect(again.status).toBe(202);
      const heldRun = (await api.run(again.body.runId)).body;
      expect(heldRun).toMatchObject({ status: 'pending', rerunOf: 'rerun-gated-1', approval: { required: true, status: 'pending', requestedBy: 'ops' } });
      expect(heldRun.workflow.awaitingApproval).toBe(true);
      const pending = await api.get('/api/approvals/pending', TEST_KEYS.operator);
      expect(pending.body.pending.map((p: { runId: string }) => p.runId)).toContain(again.body.runId);
    });

    it('answers 400 invalid_request for an internal type, 404 for an unknown run, 403 for a viewer, and checks the payload like a trigger', async () => {
      const startup = await waitFor(async () => {
        const res = await api.get('/api/tasks/runs?type=startup&includeInternal=true&limit=1');
        return res.body.items[0] as { runId: string } | undefined;
      });
      const internal = await rerun(startup.runId);
      expect(internal.status).toBe(400);
      expect(internal.body.error.code).toBe('invalid_request');
      expect(internal.body.error.message).toMatch(/internal task type 'startup'/);

      const missing = await rerun('no-such-run');
      expect(missing.status).toBe(404);
      expect(missing.body.error.code).toBe('not_found');

      await api.trigger('summarize-content', { content: 'x', idempotencyKey: 'rerun-checks-1' });
      expect((await rerun('rerun-checks-1', {}, TEST_KEYS.viewer)).status).toBe(403);
      const reserved = await rerun('rerun-checks-1', { payload: { __incidentId: 'forged' } });
      expect(reserved.status).toBe(400);
      expect(reserved.body.error.code).toBe('reserved_field');
      const badKey = await rerun('rerun-checks-1', { idempotencyKey: 'has space' });
      expect(badKey.status).toBe(400);
    });
  });
});
