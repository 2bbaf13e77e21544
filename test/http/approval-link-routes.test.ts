import { describe, expect, it } from 'vitest';
import { QUORUM_KEYS as KEYS, useQuorumService } from '../support/quorum-service.js';
import { readJson, waitForTerminal, type JsonBody } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

/** The secret of a made link: what follows `#link=` in its path. */
const secretOf = (link: { path: string }) => link.path.slice(link.path.indexOf('#link=') + '#link='.length);

/**
 * Approval links over HTTP under a two-person rule: made only for approvers who may decide,
 * each standing for its approver's key on its one approval, counted toward the quorum like a
 * click, used once, and refused once the approval is decided.
 */
describe('POST /api/approvals/:id/links and deciding by link', () => {
  const fixture = useQuorumService();

  const withLink = (secret: string, method: 'GET' | 'POST', path: string, body?: unknown) =>
    fetch(`${fixture.svc.url}${path}`, {
      method,
      headers: { 'x-approval-link': secret, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await readJson(res)) as JsonBody }));

  it('makes links for eligible approvers only, each deciding its approval once as its approver, up to the quorum', async () => {
    const { svc, api } = fixture;
    const held = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'link-deploy-1' }, KEYS.requester);
    const taskId: string = held.body.taskId;
    const other = await api.trigger('agent-deploy', { agentName: 'summarization-agent', idempotencyKey: 'link-deploy-2' }, KEYS.requester);

    const refused = await api.post(`/api/approvals/${taskId}/links`, { approvers: ['alice', 'requester', 'outsider', 'viewer-bot', 'nobody'] }, KEYS.requester);
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.map((d: { path: string }) => d.path)).toEqual([
      '/body/approvers/1',
      '/body/approvers/2',
      '/body/approvers/3',
      '/body/approvers/4',
    ]);
    expect(refused.body.error.details[3].message).toMatch(/nobody holds no active key/);
    expect((await api.post(`/api/approvals/${taskId}/links`, { approvers: ['alice'] }, TEST_KEYS.viewer)).status).toBe(403);
    expect((await api.post('/api/approvals/no-such-approval/links', { approvers: ['alice'] }, KEYS.requester)).status).toBe(404);

    const made = await api.post(`/api/approvals/${taskId}/links`, { approvers: ['alice', 'bob', 'alice'] }, KEYS.requester);
    expect(made.status).toBe(201);
    expect(made.body.links.map((l: { actor: string }) => l.actor)).toEqual(['alice', 'bob']);
    const [aliceLink, bobLink] = made.body.links as Array<{ path: string; expiresAt: string }>;
    expect(aliceLink!.path).toMatch(new RegExp(`^/operator/approvals/link\\?approval=${taskId}#link=orcl_`));
    const alice = secretOf(aliceLink!);
    const bob = secretOf(bobLink!);

    // The link shows its approval and nothing else, and never writes elsewhere.
    const shown = await withLink(alice, 'GET', `/api/approvals/${taskId}`);
    expect(shown.status).toBe(200);
    expect(shown.body).toMatchObject({ taskId, status: 'pending', approvals: { received: 0, required: 2 } });
    expect((await withLink(alice, 'GET', `/api/approvals/${other.body.taskId}`)).status).toBe(403);
    expect((await withLink(alice, 'POST', `/api/approvals/${other.body.taskId}/decision`, { decision: 'approved' })).status).toBe(403);
    expect((await withLink(alice, 'GET', '/api/approvals/pending')).status).toBe(403);
    expect((await withLink(alice, 'POST', '/api/tasks/trigger', { type: 'agent-deploy', payload: {} })).status).toBe(403);
    expect((await withLink(alice, 'POST', `/api/approvals/${taskId}/links`, { approvers: ['bob'] })).status).toBe(403);
    const me = await withLink(alice, 'GET', '/api/auth/me');
    expect(me.body).toMatchObject({ actor: 'alice', role: 'operator', groups: ['release', 'sre'], expiresAt: aliceLink!.expiresAt });
    const tampered = `${alice.slice(0, -2)}${alice.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await withLink(tampered, 'GET', `/api/approvals/${taskId}`)).status).toBe(401);

    // Alice decides by her link: one of two, recorded as hers.
    const first = await withLink(alice, 'POST', `/api/approvals/${taskId}/decision`, { decision: 'approved', input: { deployName: 'link-target' } });
    expect(first.status).toBe(200);
    expect(first.body.approval).toMatchObject({ status: 'pending', approvals: { received: 1, required: 2 } });
    expect(first.body.approval.decisionHistory).toMatchObject([{ actor: 'alice', decision: 'approved' }]);
    const reused = await withLink(alice, 'POST', `/api/approvals/${taskId}/decision`, { decision: 'approved' });
    expect(reused.status).toBe(409);
    expect(reused.body.error.message).toMatch(/^alice already decided/);
    // Once she has decided, no new link names her.
    expect((await api.post(`/api/approvals/${taskId}/links`, { approvers: ['alice'] }, KEYS.requester)).status).toBe(400);

    // Bob's link, sent as the bearer, reaches the quorum: the replay runs with the input.
    const second = await fetch(`${svc.url}/api/approvals/${taskId}/decision`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bob}`, 'content-type': 'application/json' },
      body: JSON.stringify({ decision: 'approved' }),
    });
    expect(second.status).toBe(200);
    expect(await second.json()).toMatchObject({ replayRunId: `approval-replay:${taskId}`, approval: { status: 'approved', decidedBy: 'bob' } });
    expect((await waitForTerminal(api, `approval-replay:${taskId}`)).status).toBe('success');

    // Decided: the links and the route that makes them say so.
    const late = await withLink(bob, 'POST', `/api/approvals/${taskId}/decision`, { decision: 'rejected' });
    expect(late.status).toBe(409);
    expect(late.body.error.message).toMatch(/bob already decided|no longer pending/);
    const afterDecision = await api.post(`/api/approvals/${taskId}/links`, { approvers: ['bob'] }, KEYS.requester);
    expect(afterDecision.status).toBe(409);
    expect(afterDecision.body.error.message).toMatch(/no longer pending \(status approved\)/);
  });
});
