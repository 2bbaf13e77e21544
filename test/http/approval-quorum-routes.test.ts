import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { QUORUM_KEYS as KEYS, useQuorumService } from '../support/quorum-service.js';
import { waitForTerminal } from '../support/http.js';

/**
 * The decision route over HTTP under a two-person rule for agent-deploy: keys carry groups in
 * API_KEY_ROTATION, the requester never counts, a decision short of the quorum answers 200
 * pending, and the input the approvers send lands in the deployment the replay makes.
 */
describe('POST /api/approvals/:id/decision under requiredApprovals and approverGroups', () => {
  const fixture = useQuorumService();

  it('holds at "1 of 2", refuses the requester, outsiders, repeats and reserved input, then replays with the merged input', async () => {
    const { svc, api } = fixture;
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'quorum-deploy-1' }, KEYS.requester);
    expect(held.status).toBe(202);
    const taskId: string = held.body.taskId;
    const decision = (key: string, body: Record<string, unknown>) => api.post(`/api/approvals/${taskId}/decision`, body, key);

    const pending = await api.get('/api/approvals/pending', KEYS.alice);
    const item = pending.body.pending.find((p: { taskId: string }) => p.taskId === taskId);
    expect(item).toMatchObject({
      approvals: { received: 0, required: 2 },
      policy: { requiredApprovals: 2, approverGroups: ['release'], allowSelfApproval: false },
      approvalInputSchema: { properties: { deployName: expect.any(Object) } },
    });

    expect((await decision(KEYS.requester, { decision: 'approved' })).status).toBe(403);
    const outsider = await decision(KEYS.outsider, { decision: 'rejected' });
    expect(outsider.status).toBe(403);
    expect(outsider.body.error.message).toMatch(/approver groups release/);

    const first = await decision(KEYS.alice, { decision: 'approved', note: 'ok by me', input: { version: '1.2.0' } });
    expect(first.status).toBe(200);
    expect(first.body.approval).toMatchObject({ status: 'pending', approvals: { received: 1, required: 2 } });
    expect(first.body).not.toHaveProperty('replayRunId');
    expect(first.body).not.toHaveProperty('replayTaskId');

    const again = await decision(KEYS.alice, { decision: 'approved' });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict', message: expect.stringMatching(/^alice already decided/) });

    const reserved = await decision(KEYS.bob, { decision: 'approved', input: { __actor: 'x', requiresApproval: false } });
    expect(reserved.status).toBe(400);
    expect(reserved.body.error).toMatchObject({ code: 'reserved_field' });
    expect(reserved.body.error.details.map((d: { path: string }) => d.path)).toEqual(['/body/input/__actor', '/body/input/requiresApproval']);
    expect((await decision(KEYS.bob, { decision: 'approved', input: { deployName: 'UPPER' } })).status).toBe(400);

    const second = await decision(KEYS.bob, { decision: 'approved', input: { deployName: 'quorum-target' } });
    expect(second.status).toBe(200);
    expect(second.body).toMatchObject({ replayRunId: `approval-replay:${taskId}`, approval: { status: 'approved', decidedBy: 'bob', approvals: { received: 2, required: 2 } } });

    const replay = await waitForTerminal(api, `approval-replay:${taskId}`);
    expect(replay.status).toBe('success');
    const deployPath: string = replay.result.result.deployPath;
    expect(deployPath).toMatch(/^deployments\/quorum-target-/);
    const metadataFile = join(svc.config.workspaceRoot, deployPath, 'DEPLOYMENT.json');
    expect(existsSync(metadataFile)).toBe(true);
    expect(JSON.parse(readFileSync(metadataFile, 'utf8'))).toMatchObject({ deployName: 'quorum-target', metadata: { version: '1.2.0' } });
  });

  it('documents the quorum fields and the input in the OpenAPI document', async () => {
    const { api } = fixture;
    const doc = (await api.get('/api/openapi.json', null)).body;
    const op = doc.paths['/api/approvals/{id}/decision'].post;
    const body = op.requestBody.content['application/json'].schema;
    expect(body.properties.input.description).toMatch(/reserved_field/);
    const answer = JSON.stringify(op.responses['200']);
    expect(answer).toContain('"approvals"');
    expect(answer).toContain('"received"');
    expect(op.description).toMatch(/requiredApprovals/);
  });
});
