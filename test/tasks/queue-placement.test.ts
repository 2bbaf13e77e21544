import { describe, expect, it } from 'vitest';
import { composedServiceForSuite } from '../support/composed-service.js';
import { apiClient } from '../support/http.js';
import { insertIfAbsent, makeRun } from '../support/runs.js';
import { orch } from '../support/cli.js';
import { tempDir } from '../support/config.js';
import { TEST_KEYS } from '../support/keys.js';

/** A trigger's concurrency key and priority, end to end over HTTP: stored, shown, listed, kept by a rerun, refused when bad. */
describe('queue placement of triggered runs', () => {
  const service = composedServiceForSuite();
  const api = () => apiClient(service().url);
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => (method === 'GET' ? api().get(path) : api().post(path, body ?? {}));

  it('stores the key and priority, shows them on the run, lists by key, and a rerun keeps them', async () => {
    const keyed = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'a' }, concurrencyKey: 'tenant/a', priority: 5 });
    expect(keyed.status).toBe(202);
    const plain = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'b' } });
    expect(plain.status).toBe(202);

    const view = await call('GET', `/api/tasks/runs/${keyed.body.runId}`);
    expect(view.body).toMatchObject({ concurrencyKey: 'tenant/a', priority: 5 });
    expect((await call('GET', `/api/tasks/runs/${plain.body.runId}`)).body).toMatchObject({ concurrencyKey: null, priority: 3 });

    const listed = await call('GET', '/api/tasks/runs?concurrencyKey=tenant%2Fa');
    expect(listed.body.items.map((run: { runId: string }) => run.runId)).toEqual([keyed.body.runId]);

    const rerun = await call('POST', `/api/tasks/runs/${keyed.body.runId}/rerun`, {});
    expect(rerun.status).toBe(202);
    expect((await call('GET', `/api/tasks/runs/${rerun.body.runId}`)).body).toMatchObject({ concurrencyKey: 'tenant/a', priority: 5 });
  });

  it.each([
    ['a priority above 5', { priority: 6 }, '/body/priority'],
    ['a priority below 1', { priority: 0 }, '/body/priority'],
    ['a fractional priority', { priority: 2.5 }, '/body/priority'],
    ['an empty key', { concurrencyKey: '' }, '/body/concurrencyKey'],
    ['a key over 200 characters', { concurrencyKey: 'k'.repeat(201) }, '/body/concurrencyKey'],
    ['a key that is not text', { concurrencyKey: 7 }, '/body/concurrencyKey'],
  ])('refuses %s with 400 in the error shape, admitting nothing', async (_name, fields, path) => {
    const before = (await call('GET', '/api/tasks/runs?limit=1')).body.total as number;
    const res = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'x' }, ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: expect.arrayContaining([expect.objectContaining({ path })]) });
    expect((await call('GET', '/api/tasks/runs?limit=1')).body.total).toBe(before);
  });

  it('refuses a bad concurrencyKey filter with 400', async () => {
    const res = await call('GET', `/api/tasks/runs?concurrencyKey=${'k'.repeat(201)}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
  });
});

describe('which limit holds a waiting run', () => {
  const service = composedServiceForSuite({ config: { limits: { deploys: { match: { keyPrefix: 'env/' }, perKey: 1 } } } });
  const api = () => apiClient(service().url);

  it('names the bucket with no room on the run view, and null where nothing holds the run', async () => {
    // One env/a run already running (the runner is off here, so nothing else starts).
    const running = makeRun({ runId: 'deploy-running', concurrencyKey: 'env/a', status: 'running', queueState: null, startedAt: new Date().toISOString() });
    await service().store.mutateRun(running.runId, insertIfAbsent(running));
    const held = await api().post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'a' }, concurrencyKey: 'env/a' });
    const free = await api().post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'b' }, concurrencyKey: 'env/b' });
    expect((await api().run(held.body.runId)).body).toMatchObject({ queueState: 'ready', heldBy: 'deploys' });
    expect((await api().run(free.body.runId)).body).toMatchObject({ queueState: 'ready', heldBy: null });
    expect((await api().run('deploy-running')).body).toMatchObject({ heldBy: null });
  });

  it('names it on every item of the runs list too, as the run view does', async () => {
    const listed = await api().get('/api/tasks/runs?limit=100');
    expect(listed.status).toBe(200);
    const byKey = (key: string, queueState: string | null) =>
      listed.body.items.filter((run: { concurrencyKey: string | null; queueState: string | null }) => run.concurrencyKey === key && run.queueState === queueState);
    expect(byKey('env/a', 'ready').map((run: { heldBy: unknown }) => run.heldBy)).toEqual(['deploys']);
    expect(byKey('env/b', 'ready').map((run: { heldBy: unknown }) => run.heldBy)).toEqual([null]);
    expect(byKey('env/a', null).map((run: { heldBy: unknown }) => run.heldBy)).toEqual([null]);
    // Every item carries the field, null where nothing holds it.
    expect(listed.body.items.every((run: object) => 'heldBy' in run)).toBe(true);
  });

  it('GET /api/queue shows each bucket and the whole queue by key, running, waiting and oldest wait', async () => {
    await api().post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'c' }, concurrencyKey: 'env/b', priority: 1 });
    const queue = await api().get('/api/queue');
    expect(queue.status).toBe(200);
    const deploys = queue.body.buckets.find((bucket: { name: string }) => bucket.name === 'deploys');
    expect(deploys).toMatchObject({ perKey: 1, concurrency: null, match: { keyPrefix: 'env/' } });
    const envA = deploys.keys.find((key: { key: string }) => key.key === 'env/a');
    expect(envA).toMatchObject({ running: 1, waiting: 1 });
    expect(envA.oldestWaitSeconds).toBeGreaterThanOrEqual(0);
    // Waiting runs by priority, the highest first: per key, per bucket and for the whole queue.
    const envB = deploys.keys.find((key: { key: string }) => key.key === 'env/b');
    expect(envB).toMatchObject({ running: 0, waiting: 2, byPriority: [{ priority: 3, waiting: 1 }, { priority: 1, waiting: 1 }] });
    expect(envB.byPriority[1].oldestWaitSeconds).toBeGreaterThanOrEqual(0);
    expect(envA.byPriority).toEqual([expect.objectContaining({ priority: 3, waiting: 1 })]);
    expect(deploys.priorities).toMatchObject([{ priority: 3, waiting: 2 }, { priority: 1, waiting: 1 }]);
    expect(queue.body.priorities.map((p: { priority: number }) => p.priority)).toEqual([3, 1]);
    // Unkeyed runs are in no prefix bucket, but in the whole queue.
    expect(deploys.keys.some((key: { key: string | null }) => key.key === null)).toBe(false);
    expect(queue.body.waiting).toBeGreaterThanOrEqual(3);
    expect(queue.body.keys.find((key: { key: string }) => key.key === 'env/a')).toMatchObject({ running: 1, waiting: 1 });
  });
});

describe('orch queue', () => {
  const service = composedServiceForSuite({ config: { limits: { deploys: { match: { keyPrefix: 'env/' }, perKey: 1, rate: { max: 10, windowSeconds: 60 } } } } });

  it('prints each bucket and the whole queue by key, as GET /api/queue answers them', async () => {
    const api = apiClient(service().url);
    await api.post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'a' }, concurrencyKey: 'env/prod' });
    await api.post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'b' } });
    await api.post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'c' }, concurrencyKey: 'env/prod', priority: 5 });
    const env = { ORCH_URL: service().url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-queue-') };
    const printed = await orch(['queue'], env);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('bucket deploys (perKey 1, rate 10/60s): 0 running, 2 waiting; by priority p5:1 p3:1');
    expect(printed.stdout).toContain('queue: 0 running, 3 waiting; by priority p5:1 p3:2');
    expect(printed.stdout).toMatch(/^env\/prod\s+0\s+2\s+\d+s\s+p5:1 p3:1$/m);
    expect(printed.stdout).toMatch(/^\(unkeyed\)\s+0\s+1\s+\d+s\s+p3:1$/m);
    const json = await orch(['queue', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ waiting: 3, buckets: [{ name: 'deploys', waiting: 2, priorities: [{ priority: 5, waiting: 1 }, { priority: 3, waiting: 1 }] }] });
  });
});
