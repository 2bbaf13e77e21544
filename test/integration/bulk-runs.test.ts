import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const TYPE = 'summarize-content';

interface BulkRun {
  runId: string;
  type: string | null;
  status: string | null;
  outcome: string;
  reason?: string;
  newRunId?: string | null;
}
interface BulkAnswer {
  dryRun: boolean;
  matched: number;
  truncated: boolean;
  runs: BulkRun[];
}

describe('search by payload field and bulk cancel and rerun over HTTP', () => {
  let rt: RuntimeService;
  const failed = ['bulk-f1', 'bulk-f2', 'bulk-f3'];
  const held = ['bulk-h1', 'bulk-h2', 'bulk-h3'];

  const bulk = (action: 'cancel' | 'rerun', body: unknown, key: string = TEST_KEYS.operator) =>
    rt.api.post<BulkAnswer>(`/api/tasks/bulk/${action}`, body, key);
  const statusOf = async (runId: string) => (await rt.api.run(runId)).body.status as string;
  const listed = async (query: string) => {
    const res = await rt.api.get(`/api/tasks/runs?${query}`);
    expect(res.status, query).toBe(200);
    return (res.body.items as Array<{ runId: string }>).map((r) => r.runId);
  };

  beforeAll(async () => {
    rt = await startRuntimeService();
    for (const key of failed) await rt.api.trigger(TYPE, { content: 'refused', mode: 'logical-failure', idempotencyKey: key });
    await rt.api.trigger(TYPE, { content: 'fine', idempotencyKey: 'bulk-ok' });
    for (const key of [...failed, 'bulk-ok']) await waitForTerminal(rt.api, key);
    for (const key of held) await rt.api.trigger(TYPE, { content: 'Waits for a yes.', requiresApproval: true, idempotencyKey: key });
  }, 60_000);
  afterAll(async () => {
    await rt?.service.kill();
  });

  it('finds runs by a payload field, text and boolean alike, combined with the other filters', async () => {
    expect(await listed('payload.content=refused')).toEqual([...failed].reverse());
    expect(await listed('payload.requiresApproval=true')).toEqual([...held].reverse());
    expect(await listed('payload.content=refused&status=success')).toEqual([]);
    expect(await listed('payload.mode=logical-failure&payload.content=refused&idPrefix=bulk-f1')).toEqual(['bulk-f1']);
    expect(await listed('verdict=no-such-verdict')).toEqual([]);
    const bad = await rt.api.get('/api/tasks/runs?payload.bad%20name=x');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
  });

  it('changes nothing in a dry run and says what each run would come to', async () => {
    const res = await bulk('cancel', { filter: { queueState: 'awaiting-approval' }, dryRun: true });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ dryRun: true, matched: 3, truncated: false });
    expect(res.body.runs.map((r) => [r.runId, r.status, r.outcome])).toEqual([...held].reverse().map((id) => [id, 'pending', 'cancelled']));
    for (const id of held) expect(await statusOf(id)).toBe('pending');

    const rerun = await bulk('rerun', { filter: { type: TYPE, status: 'failed' }, dryRun: true });
    expect(rerun.body.runs.map((r) => [r.runId, r.outcome, r.newRunId])).toEqual([...failed].reverse().map((id) => [id, 'rerun', null]));
    expect(await listed('payload.content=refused')).toHaveLength(3);
  });

  it('cancels queued runs by filter, at most max of them, newest first, and reports a finished one as such', async () => {
    const first = await bulk('cancel', { filter: { type: TYPE, status: 'pending' }, max: 2, reason: 'clearing the queue' });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ dryRun: false, matched: 3, truncated: true });
    expect(first.body.runs.map((r) => [r.runId, r.outcome])).toEqual([
      ['bulk-h3', 'cancelled'],
      ['bulk-h2', 'cancelled'],
    ]);
    const cancelled = (await rt.api.run('bulk-h3')).body;
    expect(cancelled).toMatchObject({ status: 'cancelled', cancellation: { reason: 'clearing the queue', requestedBy: expect.any(String) } });
    expect(await statusOf('bulk-h1')).toBe('pending');

    const rest = await bulk('cancel', { runIds: ['bulk-h1', 'bulk-ok', 'bulk-h2', 'no-such-run'] });
    expect(rest.body.runs.map((r) => [r.runId, r.outcome])).toEqual([
      ['bulk-h1', 'cancelled'],
      ['bulk-ok', 'already-finished'],
      ['bulk-h2', 'already-finished'],
      ['no-such-run', 'not-found'],
    ]);
    expect(rest.body.runs[1]!.reason).toMatch(/already finished/);
    expect(await statusOf('bulk-h1')).toBe('cancelled');
    expect(await statusOf('bulk-ok')).toBe('success');
  });

  it('reruns the failed runs of one type, each a new linked run', async () => {
    const res = await bulk('rerun', { filter: { type: TYPE, status: 'failed' } });
    expect(res.status).toBe(200);
    expect(res.body.runs.map((r) => r.runId)).toEqual([...failed].reverse());
    for (const run of res.body.runs) {
      expect(run.outcome).toBe('rerun');
      expect(run.newRunId).toEqual(expect.any(String));
      expect(run.newRunId).not.toBe(run.runId);
      const created = (await rt.api.run(run.newRunId!)).body;
      expect(created).toMatchObject({ type: TYPE, rerunOf: run.runId, payload: { content: 'refused', mode: 'logical-failure' } });
      expect((await rt.api.run(run.runId)).body.reruns).toContain(run.newRunId);
    }
    // Only failed runs of that type were picked: the successful and the cancelled ones have no rerun.
    expect((await rt.api.run('bulk-ok')).body.reruns ?? []).toEqual([]);
    expect((await rt.api.run('bulk-h1')).body.reruns ?? []).toEqual([]);
  });

  it('refuses a count above the bound, an empty filter, and both selections at once, in the error shape', async () => {
    const cases: Array<[unknown, string]> = [
      [{ filter: { type: TYPE }, max: 501 }, '/body/max'],
      [{ filter: {} }, '/body/filter'],
      [{ filter: { type: TYPE }, runIds: ['bulk-h1'] }, '/body'],
      [{ runIds: ['a', 'b', 'c'], max: 2 }, '/body/runIds'],
      [{}, '/body'],
    ];
    for (const [body, path] of cases) {
      for (const action of ['cancel', 'rerun'] as const) {
        const res = await rt.api.post(`/api/tasks/bulk/${action}`, body);
        expect(res.status, JSON.stringify(body)).toBe(400);
        expect(res.body.error.code).toBe('invalid_request');
        expect(res.body.error.details[0].path, JSON.stringify(body)).toBe(path);
      }
    }
  });

  it('is an operator action: a viewer gets 403 and nothing changes', async () => {
    const before = (await rt.api.get(`/api/tasks/runs?type=${TYPE}`)).body.total;
    for (const action of ['cancel', 'rerun'] as const) {
      const res = await rt.api.post(`/api/tasks/bulk/${action}`, { filter: { type: TYPE } }, TEST_KEYS.viewer);
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await rt.api.get(`/api/tasks/runs?type=${TYPE}`)).body.total).toBe(before);
  });

  it('is documented in the OpenAPI document, on paths no run id takes', async () => {
    const doc = (await rt.api.get('/api/openapi.json', TEST_KEYS.viewer)).body;
    expect(doc.paths['/api/tasks/bulk/cancel'].post.requestBody).toBeDefined();
    expect(doc.paths['/api/tasks/bulk/rerun'].post.responses['200']).toBeDefined();
    // A run whose id is `bulk` is still reached at its own path.
    await rt.api.trigger(TYPE, { content: 'named bulk', requiresApproval: true, idempotencyKey: 'bulk' });
    expect((await rt.api.run('bulk')).status).toBe(200);
  });
});
