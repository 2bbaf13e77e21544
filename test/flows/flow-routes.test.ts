import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN_REGISTRY } from '../../src/lanes/built-in.js';
import { installTaskTypes } from '../../src/task-types/installed.js';
import { createTaskTypeRegistry } from '../../src/task-types/registry.js';
import { echoNoteType } from '../fixtures/task-types/echo-note/definition.js';
import { echoNoteLane } from '../fixtures/task-types/echo-note/lane.js';
import { startComposedService, type ComposedService } from '../support/composed-service.js';
import { apiClient, waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { openSse } from '../support/sse-client.js';

const note = (key: string, dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({ key, type: 'echo-note', payload: { note: `note ${key}` }, dependsOn, ...extra });

/** The flow routes over the composed service with its runner: steps really run, in dependency order. */
describe('flow routes', () => {
  let svc: ComposedService;
  let api: ReturnType<typeof apiClient>;
  const flowEnded = (flowId: string) =>
    waitFor(async () => {
      const res = await api.get(`/api/flows/${flowId}`);
      return res.body.status === 'running' ? undefined : res.body;
    }, 20_000, `flow ${flowId} ended`);

  beforeAll(async () => {
    svc = await startComposedService({ runtime: true, extraTaskTypes: { types: [echoNoteType], lanes: [echoNoteLane] } });
    api = apiClient(svc.url);
  });
  afterAll(async () => {
    await svc?.close();
    installTaskTypes(createTaskTypeRegistry(BUILT_IN_REGISTRY.all()));
  });

  it('admits a fan-out/fan-in flow (202), runs each step after its dependencies, and ends success', async () => {
    const res = await api.post('/api/flows', { id: 'release-1', steps: [note('index'), note('audit', ['index']), note('tests', ['index']), note('judge', ['audit', 'tests'])] });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ status: 'queued', flowId: 'release-1', runIds: ['index', 'audit', 'tests', 'judge'].map((k) => `flow:release-1:${k}`) });
    const flow = await flowEnded('release-1');
    expect(flow.status).toBe('success');
    const at: Record<string, Record<string, any>> = Object.fromEntries((flow.steps as Array<Record<string, any>>).map((s) => [s.key, s]));
    expect(Object.values(at).map((s) => s.state)).toEqual(['success', 'success', 'success', 'success']);
    // The judge started only after both of its dependencies finished.
    expect(at.judge!.startedAt >= at.audit!.finishedAt && at.judge!.startedAt >= at.tests!.finishedAt).toBe(true);
    const run = await api.run('flow:release-1:judge');
    expect(run.body).toMatchObject({ status: 'success', source: 'flow', flowStep: { flowId: 'release-1', key: 'judge' } });

    const again = await api.post('/api/flows', { id: 'release-1', steps: [note('other')] });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ status: 'duplicate-suppressed', flowId: 'release-1' });
    const list = await api.get('/api/flows?status=success');
    expect(list.body.items.map((f: { flowId: string }) => f.flowId)).toContain('release-1');
  });

  it('refuses a cycle with 400 naming the step and field, and admits nothing', async () => {
    const before = (await api.get('/api/tasks/runs?idPrefix=flow:loop')).body.total;
    const res = await api.post('/api/flows', { id: 'loop', steps: [note('a', ['b']), note('b', ['a'])] });
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request' });
    expect(res.body.error.details).toEqual([expect.objectContaining({ path: '/body/steps/0/dependsOn' })]);
    expect((await api.get('/api/tasks/runs?idPrefix=flow:loop')).body.total).toBe(before);
    expect((await api.get('/api/flows/loop')).status).toBe(404);
  });

  it('queues each step with its own concurrency key and priority; a bad one is 400 naming the step and field, and admits nothing', async () => {
    const res = await api.post('/api/flows', { id: 'placed', steps: [note('a', [], { concurrencyKey: 'tenant-a', priority: 5 }), note('b', ['a'])] });
    expect(res.status).toBe(202);
    await flowEnded('placed');
    expect((await api.run('flow:placed:a')).body).toMatchObject({ concurrencyKey: 'tenant-a', priority: 5 });
    expect((await api.run('flow:placed:b')).body).toMatchObject({ concurrencyKey: null, priority: 3 });

    for (const [field, value] of [['concurrencyKey', ''], ['priority', 9]] as const) {
      const bad = await api.post('/api/flows', { id: 'misplaced', steps: [note('a'), note('b', ['a'], { [field]: value })] });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual([expect.objectContaining({ path: `/body/steps/1/${field}` })]);
    }
    expect((await api.get('/api/flows/misplaced')).status).toBe(404);
  });

  it('fails the flow when a step fails and skips its dependents under the default policy', async () => {
    await api.post('/api/flows', { id: 'broken', steps: [note('a', [], { payload: { note: 'x', shape: 'wrong' } }), note('b', ['a'])] });
    const flow = await flowEnded('broken');
    expect(flow.status).toBe('failed');
    expect(flow.steps.map((s: { state: string }) => s.state)).toEqual(['failed', 'skipped']);
    expect(flow.steps[1].reason).toContain("'a' failed");
  });

  it('cancels a flow: its held step and its waiting steps end, the flow ends cancelled', async () => {
    const res = await api.post('/api/flows', { id: 'gated', steps: [note('gate', [], { payload: { note: 'x', requiresApproval: true } }), note('after', ['gate'])] });
    expect(res.status).toBe(202);
    expect((await api.get('/api/flows/gated')).body.steps.map((s: { state: string }) => s.state)).toEqual(['awaiting-approval', 'waiting']);
    const cancelled = await api.post('/api/flows/gated/cancel', { reason: 'not today' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ status: 'cancelled', cancelRequested: true });
    expect(cancelled.body.steps.map((s: { state: string }) => s.state)).toEqual(['cancelled', 'cancelled']);
    expect((await api.post('/api/flows/gated/cancel', {})).status).toBe(200);
    expect((await api.post('/api/flows/broken/cancel', {}, TEST_KEYS.operator)).status).toBe(409);
  });

  it('streams a flow\'s step events: history first, then live ones, and resumes after the last id', async () => {
    await api.post('/api/flows', { id: 'watched', steps: [note('gate', [], { payload: { note: 'x', requiresApproval: true } }), note('after', ['gate'])] });
    const headers = { authorization: `Bearer ${TEST_KEYS.viewer}` };
    const sse = await openSse(`${svc.url}/api/flows/watched/events`, headers);
    expect(sse.status).toBe(200);
    await sse.waitFor((_f, all) => all.filter((f) => f.event === 'run').length >= 2, 10_000, 'the admissions');
    const names = () => sse.runEvents().map((e) => `${String(e.data.runId).split(':').pop()}:${String(e.data.name)}`);
    expect(names()).toEqual(expect.arrayContaining(['gate:admitted', 'after:waiting-for-dependencies']));
    expect(sse.runEvents().every((e) => String(e.data.runId).startsWith('flow:watched:'))).toBe(true);
    const resumeFrom = sse.lastId()!;
    await api.post('/api/flows/watched/cancel', {});
    await sse.waitFor(() => names().includes('after:cancelled'), 10_000, 'the live cancel');
    sse.close();
    const resumed = await openSse(`${svc.url}/api/flows/watched/events`, { ...headers, 'last-event-id': resumeFrom });
    await resumed.waitFor(() => resumed.runEvents().some((e) => e.data.name === 'cancelled' && String(e.data.runId).endsWith(':after')), 10_000, 'the resumed cancel');
    expect(resumed.runEvents().some((e) => e.data.name === 'admitted')).toBe(false);
    resumed.close();
    expect((await api.get('/api/flows/nope/events')).status).toBe(404);
  });

  it('an approved step runs as its replay; its dependent starts after the replay and the flow ends success', async () => {
    await api.post('/api/flows', { id: 'approved', steps: [note('gate', [], { payload: { note: 'x', requiresApproval: true } }), note('after', ['gate'])] });
    const held = await api.run('flow:approved:gate');
    const decided = await api.post(`/api/approvals/${held.body.taskId}/decision`, { decision: 'approved' }, TEST_KEYS.admin);
    expect(decided.status).toBe(200);
    const flow = await flowEnded('approved');
    expect(flow.status).toBe('success');
    expect(flow.steps[0].replayRunId).toMatch(/^approval-replay:/);
    expect(flow.steps[1].startedAt >= flow.steps[0].finishedAt).toBe(true);
  });

  it('is in the OpenAPI document', async () => {
    const doc = (await api.get('/api/openapi.json')).body;
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/flows', '/api/flows/{id}', '/api/flows/{id}/cancel', '/api/flows/{id}/events']));
  });
});
