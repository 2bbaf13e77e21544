import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

const PATH = '/api/dashboard/run-stats';

describe('GET /api/dashboard/run-stats through the running service', () => {
  let running: RuntimeService;

  beforeAll(async () => {
    running = await startRuntimeService();
    const { api } = running;
    expect((await api.trigger('summarize-content', { content: 'Keys rotate monthly.', idempotencyKey: 'stats-ok-1' })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Runbooks stay current.', idempotencyKey: 'stats-ok-2' })).status).toBe(202);
    expect((await api.trigger('summarize-content', { content: 'Held.', idempotencyKey: 'stats-held', requiresApproval: true })).status).toBe(202);
    for (const id of ['stats-ok-1', 'stats-ok-2']) expect((await waitForTerminal(api, id)).status).toBe('success');
  }, 60_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  it('a viewer reads the last hour: the runs in the newest buckets, durations per type, the held run in the queue', async () => {
    const res = await running.api.get(PATH, TEST_KEYS.viewer);
    expect(res.status).toBe(200);
    const stats = res.body;
    expect(stats.window).toBe('hour');
    expect(stats.bucketStarts).toHaveLength(60);
    const total = (status: string) => stats.series.find((s: any) => s.status === status).counts.reduce((a: number, b: number) => a + b, 0);
    expect(total('success')).toBeGreaterThanOrEqual(2);
    expect(total('pending')).toBeGreaterThanOrEqual(1);
    const summarize = stats.byType.find((t: any) => t.type === 'summarize-content');
    expect(summarize.finished).toBeGreaterThanOrEqual(2);
    expect(summarize.failureRate).toBe(0);
    expect(summarize.p50DurationMs).toBeTypeOf('number');
    expect(summarize.p95DurationMs).toBeGreaterThanOrEqual(summarize.p50DurationMs);
    expect(stats.queue.held).toBeGreaterThanOrEqual(1);
    expect(stats.sample.truncated).toBe(false);
  });

  it('the day window has 96 quarter-hour buckets; a bad window is 400 and no key is 401', async () => {
    const day = await running.api.get(`${PATH}?window=day`);
    expect(day.status).toBe(200);
    expect(day.body.bucketSeconds).toBe(900);
    expect(day.body.bucketStarts).toHaveLength(96);
    const bad = await running.api.get(`${PATH}?window=week`);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_request');
    expect((await running.api.get(PATH, null)).status).toBe(401);
  });

  it('is cached until a run changes', async () => {
    await running.api.get(PATH);
    expect((await running.api.get(PATH)).headers.get('x-svc-cache')).toBe('hit');
    expect((await running.api.trigger('summarize-content', { content: 'One more.', idempotencyKey: 'stats-ok-3' })).status).toBe(202);
    expect((await running.api.get(PATH)).headers.get('x-svc-cache')).toBe('miss');
    await waitForTerminal(running.api, 'stats-ok-3');
  });

  it('OpenAPI documents it as a viewer read with its response schema', async () => {
    const doc = (await running.api.get('/api/openapi.json', null)).body;
    const op = doc.paths[PATH].get;
    expect(op.operationId).toBe('getRunStats');
    expect(op['x-svc-access']).toMatchObject({ role: 'viewer', limiterBucket: 'viewer-read' });
    expect(JSON.stringify(op.responses['200'])).toContain('p95DurationMs');
  });
});
