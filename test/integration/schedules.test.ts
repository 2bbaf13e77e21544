import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/config.js';
import { waitFor, waitForTerminal, type apiClient } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

type Api = ReturnType<typeof apiClient>;
const RUN_ID = /^schedule:([^:]+):(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z)$/;

/** The runs of one schedule, oldest first, as the runs route lists them (no includeInternal needed). */
async function scheduleRuns(api: Api, scheduleId: string, type = 'nightly-batch'): Promise<any[]> {
  const res = await api.get(`/api/tasks/runs?type=${type}&limit=200`);
  expect(res.status).toBe(200);
  return (res.body.items as any[]).filter((r) => r.scheduleId === scheduleId).sort((a, b) => a.runId.localeCompare(b.runId));
}

const fireTime = (runId: string) => Date.parse(RUN_ID.exec(runId)![2]!);

describe('schedules through the real service', () => {
  let running: RuntimeService;
  let api: Api;

  beforeAll(async () => {
    running = await startRuntimeService();
    api = running.api;
  });
  afterAll(async () => {
    await running?.service.kill();
  });

  it('fires a six-field schedule every 2 s through admission, as runs named schedule:<id>:<fire time>', async () => {
    const created = await api.post('/api/schedules', { id: 'every-two', cron: '*/2 * * * * *', type: 'nightly-batch', overlap: 'allow' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 'every-two', builtIn: false, createdBy: expect.any(String), lastRunId: null });
    expect(created.body.nextRunAt).toHaveLength(5);
    expect(created.body.nextRunAt.map((t: string) => Date.parse(t) % 2000)).toEqual([0, 0, 0, 0, 0]);

    const runs = await waitFor(async () => {
      const found = await scheduleRuns(api, 'every-two');
      return found.length >= 3 ? found : undefined;
    }, 12_000, 'three firings of every-two');
    for (const run of runs) {
      expect(run.runId).toMatch(RUN_ID);
      expect(run.source).toBe('schedule');
      expect(run.requestedBy).toBe(created.body.createdBy);
      expect(fireTime(run.runId) % 2000).toBe(0);
    }
    // Consecutive ticks, none doubled.
    const times = runs.map((r) => fireTime(r.runId));
    expect(new Set(times).size).toBe(times.length);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2000);
    const done = await waitForTerminal(api, runs[0].runId);
    expect(done.status).toBe('success');

    const view = await api.get('/api/schedules/every-two');
    expect(view.status).toBe(200);
    expect(view.body.lastRunId).toMatch(/^schedule:every-two:/);
    expect(view.body.lastFiredAt).toBe(new Date(fireTime(view.body.lastRunId)).toISOString());

    // Disabled, it stops firing; deleted, it is gone and its runs stay.
    expect((await api.patch('/api/schedules/every-two', { enabled: false })).body.nextRunAt).toEqual([]);
    const countAfterDisable = (await scheduleRuns(api, 'every-two')).length;
    await new Promise((r) => setTimeout(r, 3000));
    expect((await scheduleRuns(api, 'every-two')).length).toBeLessThanOrEqual(countAfterDisable + 1);
    const removed = await api.delete('/api/schedules/every-two');
    expect(removed.status).toBe(204);
    expect(removed.body).toBeNull();
    expect((await api.get('/api/schedules/every-two')).status).toBe(404);
    expect((await scheduleRuns(api, 'every-two')).length).toBeGreaterThanOrEqual(3);
  }, 30_000);

  it('fires a flow schedule: a bad flow is refused at write naming /body/flow/steps, each firing is a flow whose steps run in order', async () => {
    const steps = [{ key: 'first', type: 'nightly-batch' }, { key: 'then', type: 'nightly-batch', dependsOn: ['first'], priority: 4 }];
    const bad = await api.post('/api/schedules', { id: 'flow-bad', cron: '*/2 * * * * *', flow: { steps: [steps[0], { ...steps[1], dependsOn: ['nope'] }] } });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([expect.objectContaining({ path: '/body/flow/steps/1/dependsOn/0' })]);
    const both = await api.post('/api/schedules', { id: 'flow-bad', cron: '*/2 * * * * *', type: 'nightly-batch', flow: { steps } });
    expect(both.status).toBe(400);
    expect((await api.get('/api/schedules/flow-bad')).status).toBe(404);

    const created = await api.post('/api/schedules', { id: 'flow-two', cron: '*/2 * * * * *', flow: { steps } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ type: null, flow: { steps } });
    const flow = await waitFor(async () => {
      const { lastRunId } = (await api.get('/api/schedules/flow-two')).body;
      if (typeof lastRunId !== 'string') return undefined;
      const view = await api.get(`/api/flows/${lastRunId}`);
      return view.body.status === 'success' ? view.body : undefined;
    }, 15_000, 'a flow of flow-two ended success');
    expect(flow.flowId).toMatch(/^flow-two\.\d{8}T\d{6}\.000Z$/);
    const at = Object.fromEntries((flow.steps as Array<{ key: string; startedAt: string; finishedAt: string }>).map((s) => [s.key, s]));
    expect(at.then!.startedAt >= at.first!.finishedAt).toBe(true);
    expect((await api.run(`flow:${flow.flowId}:then`)).body).toMatchObject({ source: 'flow', priority: 4 });
    expect((await api.delete('/api/schedules/flow-two')).status).toBe(204);
  }, 30_000);

  it('with overlap skip, admits nothing while the last run is held, and says why', async () => {
    // requiresApproval holds each run (pending) until an operator decides: the previous run never ends here.
    const created = await api.post('/api/schedules', { id: 'held', cron: '* * * * * *', type: 'nightly-batch', payload: { requiresApproval: true } });
    expect(created.status).toBe(201);
    const first = await waitFor(async () => (await scheduleRuns(api, 'held'))[0], 5000, 'the first held firing');
    expect(first.status).toBe('pending');
    expect(first.approval.status).toBe('pending');
    const skipped = await waitFor(async () => {
      const view = await api.get('/api/schedules/held');
      return view.body.lastSkippedAt && Date.parse(view.body.lastSkippedAt) >= fireTime(first.runId) + 2000 ? view.body : undefined;
    }, 6000, 'two skipped firings');
    expect(skipped.lastRunId).toBe(first.runId);
    expect(skipped.lastSkipReason).toBe(`overlap: the previous run ${first.runId} is still pending`);
    expect((await scheduleRuns(api, 'held')).map((r) => r.runId)).toEqual([first.runId]);
    expect((await api.delete('/api/schedules/held')).status).toBe(204);
  }, 20_000);

  it('answers 400 naming the field for a bad cron, zone, type or payload', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ cron: '* * * *', type: 'nightly-batch' }, '/body/cron'],
      [{ cron: '* * * * * * *', type: 'nightly-batch' }, '/body/cron'],
      [{ cron: '99 * * * *', type: 'nightly-batch' }, '/body/cron'],
      [{ cron: '* * * * *', timezone: 'Nowhere/City', type: 'nightly-batch' }, '/body/timezone'],
      [{ cron: '* * * * *', type: 'no-such-task' }, '/body/type'],
      [{ cron: '* * * * *', type: 'heartbeat' }, '/body/type'],
      [{ cron: '* * * * *', type: 'summarize-content', payload: { format: 'haiku' } }, '/body/payload/content'],
      [{ cron: '* * * * *', type: 'nightly-batch', overlap: 'sometimes' }, '/body/overlap'],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/api/schedules', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code, JSON.stringify(body)).toBe('invalid_request');
      expect(res.body.error.details.map((d: { path: string }) => d.path), JSON.stringify(body)).toContain(path);
    }
    await api.post('/api/schedules', { id: 'patched', cron: '0 0 * * *', type: 'nightly-batch' });
    const badPatch = await api.patch('/api/schedules/patched', { timezone: 'Not/AZone' });
    expect(badPatch.status).toBe(400);
    expect(badPatch.body.error.details[0].path).toBe('/body/timezone');
    const dup = await api.post('/api/schedules', { id: 'patched', cron: '0 1 * * *', type: 'nightly-batch' });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('conflict');
  });

  it('lists the built-in schedules as built in and refuses writes to them with 409', async () => {
    const list = await api.get('/api/schedules');
    expect(list.status).toBe(200);
    const builtIns = list.body.schedules.filter((s: { builtIn: boolean }) => s.builtIn);
    expect(builtIns.map((s: { id: string; type: string }) => [s.id, s.type])).toEqual([
      ['heartbeat', 'heartbeat'],
      ['nightly-batch', 'nightly-batch'],
      ['business-cycle', 'business-value-cycle'],
    ]);
    // This service runs with schedulerEnabled false.
    expect(builtIns.every((s: { enabled: boolean; nextRunAt: string[] }) => !s.enabled && s.nextRunAt.length === 0)).toBe(true);
    for (const id of ['heartbeat', 'nightly-batch', 'business-cycle']) {
      expect((await api.patch(`/api/schedules/${id}`, { enabled: true })).status, id).toBe(409);
      expect((await api.delete(`/api/schedules/${id}`)).status, id).toBe(409);
      const created = await api.post('/api/schedules', { id, cron: '* * * * *', type: 'nightly-batch' });
      expect(created.status, id).toBe(409);
      expect(created.body.error.code).toBe('conflict');
      expect((await api.get(`/api/schedules/${id}`)).body.builtIn).toBe(true);
    }
  });

  it('lets a viewer read and only an operator write', async () => {
    const body = { id: 'by-viewer', cron: '0 0 * * *', type: 'nightly-batch' };
    expect((await api.post('/api/schedules', body, TEST_KEYS.viewer)).status).toBe(403);
    expect((await api.post('/api/schedules', body, null)).status).toBe(401);
    expect((await api.post('/api/schedules', body, TEST_KEYS.operator)).status).toBe(201);
    expect((await api.patch('/api/schedules/by-viewer', { enabled: false }, TEST_KEYS.viewer)).status).toBe(403);
    expect((await api.delete('/api/schedules/by-viewer', TEST_KEYS.viewer)).status).toBe(403);
    expect((await api.get('/api/schedules/by-viewer', TEST_KEYS.viewer)).status).toBe(200);
    expect((await api.get('/api/schedules', null)).status).toBe(401);
    expect((await api.delete('/api/schedules/by-viewer', TEST_KEYS.admin)).status).toBe(204);
  });
});

describe('schedules across a restart', () => {
  const base = tempDir('orch-schedules-restart-');
  let running: RuntimeService | null = null;
  afterAll(async () => {
    await running?.service.kill();
  });

  it('keeps schedules, and after downtime runs a missed firing once with catchUp once and skips it with catchUp skip', async () => {
    running = await startRuntimeService({}, base);
    // A tick a few seconds ahead, falling while the service is down.
    const tick = new Date(Math.ceil((Date.now() + 4000) / 1000) * 1000);
    const cron = `${tick.getUTCSeconds()} * * * * *`;
    for (const catchUp of ['once', 'skip']) {
      const res = await running.api.post('/api/schedules', { id: `catch-${catchUp}`, cron, type: 'nightly-batch', catchUp });
      expect(res.status).toBe(201);
      expect(res.body.nextRunAt[0]).toBe(tick.toISOString());
    }
    await running.service.kill();
    running = null;
    expect(Date.now()).toBeLessThan(tick.getTime());

    // Down past the tick and past the grace in which a late tick still counts as on time (5 s).
    await new Promise((r) => setTimeout(r, tick.getTime() + 6500 - Date.now()));
    running = await startRuntimeService({}, base);
    const api = running.api;
    const list = await api.get('/api/schedules');
    expect(list.body.schedules.map((s: { id: string }) => s.id)).toEqual(expect.arrayContaining(['catch-once', 'catch-skip']));

    const caughtUp = await waitFor(async () => {
      const view = await api.get('/api/schedules/catch-once');
      return view.body.lastRunId ? view.body : undefined;
    }, 8000, 'the catch-up firing');
    expect(caughtUp).toMatchObject({ lastRunId: `schedule:catch-once:${tick.toISOString()}`, lastFiredAt: tick.toISOString(), lastCatchUp: true });
    const run = await waitForTerminal(api, caughtUp.lastRunId);
    expect(run).toMatchObject({ source: 'schedule', scheduleId: 'catch-once', status: 'success' });

    const skipped = await waitFor(async () => {
      const view = await api.get('/api/schedules/catch-skip');
      return view.body.lastSkippedAt ? view.body : undefined;
    }, 8000, 'the missed firing recorded');
    expect(skipped).toMatchObject({ lastRunId: null, lastSkippedAt: tick.toISOString(), lastSkipReason: expect.stringMatching(/^missed/) });
    expect((await api.run(`schedule:catch-skip:${tick.toISOString()}`)).status).toBe(404);
    // One catch-up only: nothing else of the downtime was admitted.
    expect(await scheduleRuns(api, 'catch-once')).toHaveLength(1);
  }, 40_000);
});

const SKIP_REASON = 'TEST_DATABASE_URL unset: two instances on one PostgreSQL skipped';

describe.skipIf(!TEST_DATABASE_URL)(`schedules on two instances sharing PostgreSQL (${TEST_DATABASE_URL ? 'TEST_DATABASE_URL' : SKIP_REASON})`, () => {
  const schema = uniqueSchema('schedules');
  const services: RuntimeService[] = [];
  afterAll(async () => {
    for (const s of services) await s.service.kill();
    await dropTestSchemas(TEST_DATABASE_URL!, [schema]);
  });

  it('fires each tick once though both instances fire it, and each picks up a schedule made on the other', async () => {
    const config = { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) };
    // One after the other: the first applies the migrations. Debug lines say what each firing got.
    for (let i = 0; i < 2; i++) services.push(await startRuntimeService(config, tempDir(`orch-schedules-pg-${i}-`), { LOG_LEVEL: 'debug' }));
    const [a, b] = services as [RuntimeService, RuntimeService];

    expect((await a.api.post('/api/schedules', { id: 'shared', cron: '*/2 * * * * *', type: 'nightly-batch', overlap: 'allow' })).status).toBe(201);
    const runs = await waitFor(async () => {
      const found = await scheduleRuns(b.api, 'shared');
      return found.length >= 4 ? found : undefined;
    }, 15_000, 'four firings of the shared schedule');
    const times = runs.map((r) => fireTime(r.runId));
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBe(2000);

    // Both instances fired the same ticks; the admission stored one run each and answered the other duplicate.
    const fired = (service: RuntimeService) =>
      new Map(
        service.service.output
          .filter((line) => line.includes('"schedule fired"'))
          .map((line) => JSON.parse(line) as { runId: string; outcome: string })
          .filter((entry) => entry.runId.startsWith('schedule:shared:'))
          .map((entry) => [entry.runId, entry.outcome]),
      );
    const both = runs.map((r) => r.runId).filter((id) => fired(a).has(id) && fired(b).has(id));
    expect(both.length).toBeGreaterThanOrEqual(1);
    for (const runId of both) {
      expect([fired(a).get(runId), fired(b).get(runId)].sort(), runId).toEqual(['admitted', 'duplicate']);
    }
    const telemetry = await a.api.get('/api/tasks/runs?type=nightly-batch&limit=200');
    const ids = (telemetry.body.items as { runId: string }[]).map((r) => r.runId).filter((id) => id.startsWith('schedule:shared:'));
    expect(new Set(ids).size).toBe(ids.length);

    // Created on B, fired (and seen) on A within a refresh.
    expect((await b.api.post('/api/schedules', { id: 'from-b', cron: '* * * * * *', type: 'nightly-batch', overlap: 'allow' })).status).toBe(201);
    const seenByA = () =>
      a.service.output.some((line) => /"msg":"schedule (fired|tick already decided by another instance)"/.test(line) && line.includes('"scheduleId":"from-b"'));
    await waitFor(async () => (seenByA() ? true : undefined), 8000, 'A firing from-b');
    expect((await a.api.delete('/api/schedules/from-b')).status).toBe(204);
    expect((await a.api.delete('/api/schedules/shared')).status).toBe(204);
  }, 60_000);
});
