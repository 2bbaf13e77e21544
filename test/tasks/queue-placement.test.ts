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
    ['a tag with a space', { tags: ['a b'] }, '/body/tags/0'],
    ['an empty tag', { tags: ['ok', ''] }, '/body/tags/1'],
    ['a tag over 64 characters', { tags: ['t'.repeat(65)] }, '/body/tags/0'],
    ['more than 20 tags', { tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, '/body/tags'],
    ['tags that are not a list', { tags: 'solo' }, '/body/tags'],
  ])('refuses %s with 400 in the error shape, admitting nothing', async (_name, fields, path) => {
    const before = (await call('GET', '/api/tasks/runs?limit=1')).body.total as number;
    const res = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'x' }, ...fields });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: expect.arrayContaining([expect.objectContaining({ path })]) });
    expect((await call('GET', '/api/tasks/runs?limit=1')).body.total).toBe(before);
  });

  it('stores a trigger\'s tags, shows them, lists by every ?tag= given, and a rerun and a bulk rerun keep them', async () => {
    const both = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 't1' }, tags: ['api-tags', 'team:red', 'api-tags'] });
    expect(both.status).toBe(202);
    const one = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 't2' }, tags: ['api-tags'] });
    const none = await call('POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 't3' } });
    expect((await call('GET', `/api/tasks/runs/${both.body.runId}`)).body.tags).toEqual(['api-tags', 'team:red']);
    expect((await call('GET', `/api/tasks/runs/${none.body.runId}`)).body.tags).toEqual([]);
    const ids = async (query: string) => (await call('GET', `/api/tasks/runs?${query}`)).body.items.map((run: { runId: string }) => run.runId);
    expect(await ids('tag=api-tags')).toEqual([one.body.runId, both.body.runId]);
    expect(await ids('tag=api-tags&tag=team%3Ared')).toEqual([both.body.runId]);
    const rerun = await call('POST', `/api/tasks/runs/${both.body.runId}/rerun`, {});
    expect((await call('GET', `/api/tasks/runs/${rerun.body.runId}`)).body.tags).toEqual(['api-tags', 'team:red']);
    const bulk = await call('POST', '/api/tasks/bulk/rerun', { filter: { tags: ['team:red'] }, dryRun: true });
    expect(bulk.status).toBe(200);
    expect(bulk.body.runs.map((run: { runId: string }) => run.runId).sort()).toEqual([both.body.runId, rerun.body.runId].sort());
    expect((await call('POST', '/api/tasks/bulk/rerun', { filter: { tags: [] } })).status).toBe(400);
  });

  it('refuses a bad ?tag= filter with 400 naming the query', async () => {
    const res = await call('GET', '/api/tasks/runs?tag=no%20spaces');
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [expect.objectContaining({ path: expect.stringMatching(/^\/querystring\/tag/) })] });
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
    // A trailing debounce's run waits for its window's end: counted as waiting, and said to be held by its time.
    const debounced = await api.post('/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'd' }, debounce: { key: 'orch-queue', windowMs: 600_000, mode: 'trailing' } });
    expect(debounced.status).toBe(202);
    const env = { ORCH_URL: service().url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-queue-') };
    const printed = await orch(['queue'], env);
    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('bucket deploys (perKey 1, rate 10/60s): 0 running, 2 waiting; by priority p5:1 p3:1');
    expect(printed.stdout).toContain('queue: 0 running, 4 waiting (1 held by a not-before time); by priority p5:1 p3:3');
    expect(printed.stdout).toMatch(/^env\/prod\s+0\s+2\s+\d+s\s+p5:1 p3:1$/m);
    expect(printed.stdout).toMatch(/^\(unkeyed\)\s+0\s+2\s+\d+s\s+p3:2$/m);
    const json = await orch(['queue', '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({ waiting: 4, notBefore: 1, buckets: [{ name: 'deploys', waiting: 2, priorities: [{ priority: 5, waiting: 1 }, { priority: 3, waiting: 1 }] }] });
  });
});

/** Run tags from the command line: `orch run --tag`, `orch runs --tag`, `orch show`, and a bulk filter on a tag. */
describe('run tags in the orch command line', () => {
  const service = composedServiceForSuite();

  it('tags a run, lists and shows it by its tags, and picks it for a bulk rerun by tag', async () => {
    const env = { ORCH_URL: service().url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-tags-'), COLUMNS: '200' };
    const ran = await orch(['run', 'summarize-content', 'content=tagged', '--tag', 'cli:one', '--tag', 'team=ops', '--key', 'cli-tagged'], env);
    expect(ran.code).toBe(0);
    await orch(['run', 'summarize-content', 'content=other', '--tag', 'cli:one', '--key', 'cli-other'], env);
    const api = apiClient(service().url);
    expect((await api.get('/api/tasks/runs/cli-tagged')).body.tags).toEqual(['cli:one', 'team=ops']);

    const listed = await orch(['runs', '--tag', 'cli:one', '--tag', 'team=ops', '--json'], env);
    expect(JSON.parse(listed.stdout).items.map((r: { runId: string }) => r.runId)).toEqual(['cli-tagged']);
    const table = await orch(['runs', '--tag', 'cli:one'], env);
    expect(table.stdout).toMatch(/cli-tagged .*cli:one team=ops/);
    expect(table.stdout).toContain('cli-other');
    const shown = await orch(['show', 'cli-tagged'], env);
    expect(shown.stdout).toMatch(/^tags\s+cli:one team=ops$/m);

    const bulk = await orch(['rerun', '--filter', 'tag=cli:one,tag=team=ops', '--dry-run', '--json'], env);
    expect(bulk.code).toBe(0);
    expect(JSON.parse(bulk.stdout).runs.map((r: { runId: string }) => r.runId)).toEqual(['cli-tagged']);
    const refused = await orch(['run', 'summarize-content', 'content=x', '--tag', 'no spaces'], env);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('tags.0: must match pattern');
  });
});
