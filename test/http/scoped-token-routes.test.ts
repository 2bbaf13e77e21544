import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient, bodyText, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';

/**
 * Scoped tokens over HTTP, on the composed service: issued by operators, read what their scope
 * names (record and event stream, the stream also with ?access_token=), nothing else and never a
 * write; revoked at once; and with viewerSeesPayloads false a viewer, key or token, sees no payload.
 */
describe('POST /api/tokens and what a token reads', () => {
  let svc: ComposedService;
  let api: ReturnType<typeof apiClient>;
  beforeAll(async () => {
    svc = await startComposedService({ runtime: true, config: { viewerSeesPayloads: false } });
    api = apiClient(svc.url);
    for (const id of ['tok-mine', 'tok-other']) {
      expect((await api.trigger('summarize-content', { content: `secret text of ${id}`, idempotencyKey: id })).status).toBe(202);
      await waitForTerminal(api, id);
    }
  });
  afterAll(async () => {
    await svc?.close();
  });

  const issue = (scope: Record<string, unknown>, key: string = TEST_KEYS.operator, extra: Record<string, unknown> = {}) =>
    api.post('/api/tokens', { scope, ...extra }, key);

  it('issues only to operators and admins, a viewer token whatever is asked for', async () => {
    expect((await issue({ kind: 'read' }, TEST_KEYS.viewer)).status).toBe(403);
    expect((await issue({ kind: 'read' }, TEST_KEYS.admin)).status).toBe(201);
    expect((await issue({ kind: 'everything' })).status).toBe(400);
    expect((await issue({ kind: 'read' }, TEST_KEYS.operator, { role: 'admin' })).status).toBe(400);
    expect((await issue({ kind: 'read' }, TEST_KEYS.operator, { expiresInMinutes: 24 * 60 + 1 })).status).toBe(400);
    const issued = await issue({ kind: 'run', runId: 'tok-mine' });
    expect(issued.status).toBe(201);
    const me = await api.get('/api/auth/me', issued.body.token);
    expect(me.body).toMatchObject({
      role: 'viewer',
      credential: 'token',
      expiresAt: issued.body.expiresAt,
      token: { tokenId: issued.body.tokenId, scope: { kind: 'run', runId: 'tok-mine' }, issuedBy: 'ops' },
    });
    expect(me.headers.get('x-api-key-expires')).toBe(issued.body.expiresAt);
    // A token issues no token, and never writes.
    expect((await issue({ kind: 'read' }, issued.body.token)).status).toBe(403);
    expect((await api.trigger('summarize-content', { content: 'x' }, issued.body.token)).status).toBe(403);
  });

  it('reads its run and that run’s event stream, the stream also with access_token, and nothing else', async () => {
    const { token } = (await issue({ kind: 'run', runId: 'tok-mine' })).body;
    expect((await api.get('/api/tasks/runs/tok-mine', token)).status).toBe(200);
    const other = await api.get('/api/tasks/runs/tok-other', token);
    expect(other.status).toBe(403);
    expect(other.body.error.message).toMatch(/run tok-mine/);
    expect((await api.get('/api/tasks/runs', token)).status).toBe(403);
    expect((await api.get('/api/tasks/catalog', token)).status).toBe(403);
    expect((await api.get('/api/events', token)).status).toBe(403);

    const stream = await fetch(`${svc.url}/api/tasks/runs/tok-mine/events?access_token=${encodeURIComponent(token)}`);
    expect(stream.status).toBe(200);
    expect(await bodyText(stream, 2000)).toContain('event: end');
    const elsewhere = await fetch(`${svc.url}/api/tasks/runs/tok-other/events?access_token=${encodeURIComponent(token)}`);
    expect(elsewhere.status).toBe(403);
    await elsewhere.text();
    // The query string carries a token on event streams only, and a key never.
    const onRecord = await fetch(`${svc.url}/api/tasks/runs/tok-mine?access_token=${encodeURIComponent(token)}`);
    expect(onRecord.status).toBe(401);
    await onRecord.text();
    const keyInQuery = await fetch(`${svc.url}/api/tasks/runs/tok-mine/events?access_token=${TEST_KEYS.viewer}`);
    expect(keyInQuery.status).toBe(401);
    expect(await keyInQuery.text()).not.toContain(TEST_KEYS.viewer);
  });

  it('lets a flow token read its step runs through idPrefix, and a read token what a viewer reads', async () => {
    const flow = (await issue({ kind: 'flow', flowId: 'f1' })).body.token;
    expect((await api.get('/api/tasks/runs?idPrefix=flow%3Af1%3A', flow)).body).toMatchObject({ items: [] });
    expect((await api.get('/api/tasks/runs?idPrefix=tok', flow)).status).toBe(403);
    expect((await api.get('/api/tasks/runs/tok-mine', flow)).status).toBe(403);
    const read = (await issue({ kind: 'read' })).body.token;
    expect((await api.get('/api/tasks/runs', read)).status).toBe(200);
    expect((await api.get('/api/tasks/catalog', read)).status).toBe(200);
    expect((await api.get('/api/approvals/pending', read)).status).toBe(403);
  });

  it('lets a tag token read the runs carrying its tag, their streams and the listing on its tag, and nothing else', async () => {
    const tagged = await api.post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'tagged', idempotencyKey: 'tok-tagged' }, tags: ['team:blue', 'env=prod'] });
    expect(tagged.status).toBe(202);
    await waitForTerminal(api, 'tok-tagged');
    expect((await issue({ kind: 'tag', tag: 'bad tag!' })).status).toBe(400);
    const issued = await issue({ kind: 'tag', tag: 'team:blue' });
    expect(issued.status).toBe(201);
    expect(issued.body.scope).toEqual({ kind: 'tag', tag: 'team:blue' });
    const { token } = issued.body;
    const mine = await api.get('/api/tasks/runs/tok-tagged', token);
    expect(mine.status).toBe(200);
    expect(mine.body.tags).toEqual(['team:blue', 'env=prod']);
    // An untagged run, and a run that does not exist, answer alike: the token learns nothing of either.
    for (const runId of ['tok-mine', 'no-such-run']) {
      const refused = await api.get(`/api/tasks/runs/${runId}`, token);
      expect(refused.status).toBe(403);
      expect(refused.body.error.message).toMatch(/runs tagged team:blue/);
    }
    const listed = await api.get('/api/tasks/runs?tag=team%3Ablue', token);
    expect(listed.status).toBe(200);
    expect(listed.body.items.map((r: { runId: string }) => r.runId)).toEqual(['tok-tagged']);
    expect((await api.get('/api/tasks/runs?tag=team%3Ablue&tag=env%3Dprod', token)).body.total).toBe(1);
    expect((await api.get('/api/tasks/runs', token)).status).toBe(403);
    expect((await api.get('/api/tasks/runs?tag=env%3Dprod', token)).status).toBe(403);
    expect((await api.get('/api/events', token)).status).toBe(403);
    expect((await api.get('/api/tasks/runs/tok-tagged/logs', token)).status).toBe(403);
    const stream = await fetch(`${svc.url}/api/tasks/runs/tok-tagged/events?access_token=${encodeURIComponent(token)}`);
    expect(stream.status).toBe(200);
    expect(await bodyText(stream, 2000)).toContain('event: end');
    const elsewhere = await fetch(`${svc.url}/api/tasks/runs/tok-mine/events?access_token=${encodeURIComponent(token)}`);
    expect(elsewhere.status).toBe(403);
    await elsewhere.text();
    // Every write is refused, on the tagged run too.
    expect((await api.post('/api/tasks/runs/tok-tagged/rerun', {}, token)).status).toBe(403);
    expect((await api.post('/api/tasks/runs/tok-tagged/cancel', {}, token)).status).toBe(403);
    expect((await api.post('/api/tasks/bulk/rerun', { filter: { tags: ['team:blue'] }, dryRun: true }, token)).status).toBe(403);
    expect((await api.trigger('summarize-content', { content: 'x' }, token)).status).toBe(403);
    expect((await issue({ kind: 'read' }, token)).status).toBe(403);
  });

  it('refuses a revoked, altered or expired-looking token with 401', async () => {
    const issued = (await issue({ kind: 'read' })).body;
    const tampered = `${issued.token.slice(0, -2)}${issued.token.endsWith('AA') ? 'BB' : 'AA'}`;
    expect((await api.get('/api/auth/me', tampered)).status).toBe(401);
    expect((await api.get('/api/tokens')).status).toBe(403);
    const listed = await api.get('/api/tokens', TEST_KEYS.operator);
    expect(listed.body.tokens.some((t: { tokenId: string; token?: string }) => t.tokenId === issued.tokenId && t.token === undefined)).toBe(true);
    expect(JSON.stringify(listed.body)).not.toContain(issued.token);
    const revoked = await api.delete(`/api/tokens/${issued.tokenId}`);
    expect(revoked.body).toMatchObject({ tokenId: issued.tokenId, revokedBy: 'ops' });
    const after = await api.get('/api/auth/me', issued.token);
    expect(after.status).toBe(401);
    expect(after.body.error.message).toBe('The token was revoked');
    expect((await api.delete('/api/tokens/no-such-token')).status).toBe(404);
  });

  it('withholds payloads and results from the viewer role when viewerSeesPayloads is false', async () => {
    const asOperator = await api.get('/api/tasks/runs/tok-mine', TEST_KEYS.operator);
    expect(asOperator.body.payload.content).toBe('secret text of tok-mine');
    expect(asOperator.body.result).not.toBeNull();
    const token = (await issue({ kind: 'run', runId: 'tok-mine' })).body.token;
    for (const key of [TEST_KEYS.viewer, token]) {
      const run = await api.get('/api/tasks/runs/tok-mine', key);
      expect(run.body).toMatchObject({ runId: 'tok-mine', status: 'success', payload: {}, result: null, payloadWithheld: true });
      expect(JSON.stringify(run.body)).not.toContain('secret text');
    }
    const list = await api.get('/api/tasks/runs', TEST_KEYS.viewer);
    expect(JSON.stringify(list.body)).not.toContain('secret text');
    expect(JSON.stringify((await api.get('/api/tasks/runs', TEST_KEYS.operator)).body)).toContain('secret text');
  });
});
