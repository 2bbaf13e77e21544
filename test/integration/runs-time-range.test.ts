import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const TYPE = 'summarize-content';

interface Page {
  items: Array<{ runId: string; createdAt: string }>;
  total: number;
  nextCursor: string | null;
}

describe('GET /api/tasks/runs by creation time (createdFrom inclusive, createdTo exclusive)', () => {
  let rt: RuntimeService;
  /** createdAt of runs a, b, c, admitted in that order at distinct milliseconds. */
  const created: Record<string, string> = {};

  async function page(query: string) {
    const res = await rt.api.get<Page>(`/api/tasks/runs?${query}`);
    expect(res.status, query).toBe(200);
    return { ids: res.body.items.map((r) => r.runId), total: res.body.total, nextCursor: res.body.nextCursor, cache: res.headers.get('x-svc-cache') };
  }

  async function admit(id: string): Promise<void> {
    const res = await rt.api.trigger(TYPE, { content: `run ${id}`, idempotencyKey: `tr-${id}` });
    expect(res.status).toBe(202);
    created[id] = res.body.createdAt;
    await waitForTerminal(rt.api, `tr-${id}`);
    await sleep(5); // the next run's createdAt falls in a later millisecond
  }

  beforeAll(async () => {
    rt = await startRuntimeService();
    for (const id of ['a', 'b', 'c']) await admit(id);
  }, 60_000);
  afterAll(async () => {
    await rt?.service.kill();
  });

  const q = (params: Record<string, string>) => new URLSearchParams(params).toString();

  it('lists only the runs in the range, total counting the whole range', async () => {
    expect(await page(q({ createdFrom: created.b! }))).toMatchObject({ ids: ['tr-c', 'tr-b'], total: 2 });
    expect(await page(q({ createdTo: created.b! }))).toMatchObject({ ids: ['tr-a'], total: 1 });
    expect(await page(q({ createdFrom: created.a!, createdTo: created.c! }))).toMatchObject({ ids: ['tr-b', 'tr-a'], total: 2 });
    expect(await page(q({ createdFrom: created.a!, createdTo: created.c!, status: 'failed' }))).toMatchObject({ ids: [], total: 0 });
    // The same instant in another offset selects the same runs.
    const bInParis = new Date(Date.parse(created.b!) + 3_600_000).toISOString().replace('Z', '+01:00');
    expect(await page(q({ createdFrom: bInParis }))).toMatchObject({ ids: ['tr-c', 'tr-b'], total: 2 });
  });

  it('pages by cursor inside the range', async () => {
    const first = await page(q({ createdFrom: created.a!, limit: '2' }));
    expect(first).toMatchObject({ ids: ['tr-c', 'tr-b'], total: 3 });
    const second = await page(q({ createdFrom: created.a!, limit: '2', cursor: first.nextCursor! }));
    expect(second).toMatchObject({ ids: ['tr-a'], total: 3, nextCursor: null });
  });

  it('caches each range under its own key, and a new run in an open range drops the cached page', async () => {
    const open = q({ createdFrom: created.b! });
    const closed = q({ createdFrom: created.a!, createdTo: created.b! });
    await page(open);
    await page(closed);
    expect((await page(open)).cache).toBe('hit');
    expect(await page(closed)).toMatchObject({ ids: ['tr-a'], cache: 'hit' });
    await admit('d');
    expect(await page(open)).toMatchObject({ ids: ['tr-d', 'tr-c', 'tr-b'], total: 3, cache: 'miss' });
    expect(await page(closed)).toMatchObject({ ids: ['tr-a'], total: 1 });
  });

  it('answers 400 invalid_request for a bound that is not a date-time, changing nothing', async () => {
    for (const [name, value] of [['createdFrom', 'yesterday'], ['createdTo', '2026-01-01'], ['createdFrom', '2026-13-01T00:00:00Z'], ['createdTo', '2026-12-31T23:59:60Z']] as const) {
      // (A leap second passes the date-time format but names no instant JavaScript can hold: the runtime refuses it.)
      const res = await rt.api.get(`/api/tasks/runs?${q({ [name]: value })}`);
      expect(res.status, `${name}=${value}`).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
      expect(res.body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: `/querystring/${name}` })]));
    }
  });

  it('answers 400 invalid_request when createdFrom is not before createdTo', async () => {
    const ranges: Array<[string, string]> = [[created.c!, created.a!], [created.b!, created.b!]];
    for (const [from, to] of ranges) {
      const res = await rt.api.get(`/api/tasks/runs?${q({ createdFrom: from, createdTo: to })}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: '/querystring/createdTo', message: 'must be after createdFrom' }] });
    }
  });

  it('shows both parameters in the OpenAPI document', async () => {
    const res = await rt.api.get('/api/openapi.json');
    expect(res.status).toBe(200);
    const params = res.body.paths['/api/tasks/runs'].get.parameters as Array<{ name: string; in: string; required: boolean; schema: { format?: string } }>;
    for (const name of ['createdFrom', 'createdTo']) {
      expect(params).toContainEqual(expect.objectContaining({ name, in: 'query', required: false, schema: expect.objectContaining({ format: 'date-time' }) }));
    }
  });
});
