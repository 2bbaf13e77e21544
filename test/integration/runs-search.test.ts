import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_KEYS } from '../support/keys.js';
import { waitForTerminal } from '../support/http.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const TYPE = 'summarize-content';

interface Page {
  items: Array<{ runId: string; status: string; workflow: { awaitingApproval: boolean } }>;
  total: number;
}

describe('GET /api/tasks/runs by idPrefix and queueState; the trigger says when a run is held', () => {
  let rt: RuntimeService;
  let heldRunId: string;
  let heldReply: Record<string, unknown>;
  let plainReply: Record<string, unknown>;

  async function page(query: string) {
    const res = await rt.api.get<Page>(`/api/tasks/runs?${query}`);
    expect(res.status, query).toBe(200);
    return { ids: res.body.items.map((r) => r.runId), total: res.body.total, items: res.body.items };
  }

  beforeAll(async () => {
    rt = await startRuntimeService();
    const plain = await rt.api.trigger(TYPE, { content: 'Runs at once.', idempotencyKey: 'search-a1' });
    plainReply = plain.body;
    await waitForTerminal(rt.api, 'search-a1');
    await waitForTerminal(rt.api, (await rt.api.trigger(TYPE, { content: 'Runs at once too.', idempotencyKey: 'search-a2' })).body.runId);
    const held = await rt.api.trigger(TYPE, { content: 'Waits for a yes.', requiresApproval: true });
    heldReply = held.body;
    heldRunId = held.body.runId;
  }, 60_000);
  afterAll(async () => {
    await rt?.service.kill();
  });

  it('answers a held run queued, with approval required, and a plain one without the field', () => {
    expect(heldReply).toMatchObject({ status: 'queued', approval: 'required', runId: heldRunId });
    expect(plainReply.status).toBe('queued');
    expect(plainReply).not.toHaveProperty('approval');
  });

  it('lists the runs whose id starts with the prefix, the exact id included', async () => {
    expect(await page('idPrefix=search-a')).toMatchObject({ ids: ['search-a2', 'search-a1'], total: 2 });
    expect(await page('idPrefix=search-a1')).toMatchObject({ ids: ['search-a1'], total: 1 });
    expect(await page(`idPrefix=${heldRunId.slice(0, 8)}`)).toMatchObject({ ids: [heldRunId], total: 1 });
    expect(await page('idPrefix=SEARCH-A')).toMatchObject({ ids: [], total: 0 });
    // A prefix is never a path: the run route keeps exact ids.
    expect((await rt.api.run(heldRunId.slice(0, 8))).status).toBe(404);
  });

  it('lists held runs with queueState=held, pending and marked awaiting approval', async () => {
    const held = await page('queueState=held');
    expect(held).toMatchObject({ ids: [heldRunId], total: 1 });
    expect(held.items[0]).toMatchObject({ status: 'pending', workflow: { awaitingApproval: true } });
    expect(await page('queueState=awaiting-approval')).toMatchObject({ ids: [heldRunId], total: 1 });
    expect(await page('queueState=ready')).toMatchObject({ ids: [], total: 0 });
    expect(await page('queueState=held&idPrefix=search-')).toMatchObject({ ids: [], total: 0 });
  });

  it('refuses an empty prefix and an unknown queue state with 400 naming the field', async () => {
    for (const query of ['idPrefix=', 'queueState=awaiting']) {
      const res = await rt.api.get(`/api/tasks/runs?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.details[0].path).toBe(`/querystring/${query.split('=')[0]}`);
    }
  });

  it('documents both parameters and the approval field in the OpenAPI document', async () => {
    const doc = (await rt.api.get('/api/openapi.json', TEST_KEYS.viewer)).body;
    const params = (doc.paths['/api/tasks/runs'].get.parameters as Array<{ name: string }>).map((p) => p.name);
    expect(params).toEqual(expect.arrayContaining(['idPrefix', 'queueState']));
    const queued = doc.paths['/api/tasks/trigger'].post.responses['202'].content['application/json'].schema;
    expect(queued.properties.approval).toMatchObject({ const: 'required' });
  });
});
