import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { slotRunId } from '../../src/scheduler/scheduler.js';
import { tempDir } from '../support/config.js';
import { apiClient, waitFor, waitForTerminal } from '../support/http.js';
import { startService, type ServiceProcess } from '../support/service-process.js';

describe('slotRunId', () => {
  it('names one run per type and minute, whichever instance fires', () => {
    const a = slotRunId('heartbeat', new Date('2026-11-22T10:05:01.200Z'));
    const b = slotRunId('heartbeat', new Date('2026-11-22T10:05:59.900Z'));
    expect(a).toBe('heartbeat:2026-11-22T10:05:00.000Z');
    expect(b).toBe(a);
    expect(slotRunId('heartbeat', new Date('2026-11-22T10:06:00.000Z'))).not.toBe(a);
  });
});

describe('scheduled and internal tasks', () => {
  let service: ServiceProcess;
  let api: ReturnType<typeof apiClient>;

  beforeAll(async () => {
    // Fire the heartbeat every second: the per-minute slot id still admits one run per minute.
    service = await startService({ baseDir: tempDir(), config: { heartbeatCron: '* * * * * *', nightlyBatchCron: '* * * * * *' } });
    api = apiClient(service.url);
  });
  afterAll(async () => {
    await service?.kill();
  });

  it('runs the heartbeat on its schedule as an internal task visible only with includeInternal', async () => {
    const heartbeat = await waitFor(async () => {
      const res = await api.get('/api/tasks/runs?includeInternal=true&type=heartbeat');
      return res.body.total >= 1 ? res.body.items[0] : undefined;
    }, 5000, 'a heartbeat run');
    expect(heartbeat.runId).toMatch(/^heartbeat:\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(heartbeat.internal).toBe(true);
    expect(heartbeat.source).toBe('scheduler');
    const done = await waitForTerminal(api, heartbeat.runId);
    expect(done.status).toBe('success');
    expect(done.result.result).toMatchObject({ healthStatus: expect.any(String), taskQueueDepth: expect.any(Number) });
    expect(done.result.result.uptime).toBeGreaterThanOrEqual(0);
    expect(done.result.result.memoryUsageMb).toBeGreaterThan(0);

    // Several more per-second firings: they all land in one or two minute slots.
    await new Promise((r) => setTimeout(r, 2500));
    const again = await api.get('/api/tasks/runs?includeInternal=true&type=heartbeat');
    expect(again.body.total).toBeGreaterThanOrEqual(1);
    expect(again.body.total).toBeLessThanOrEqual(2);
    const hidden = await api.get('/api/tasks/runs?type=heartbeat');
    expect(hidden.body.total).toBe(0);
  });

  it('runs nightly-batch from cron through the same admission path', async () => {
    const batch = await waitFor(async () => {
      const res = await api.get('/api/tasks/runs?type=nightly-batch');
      return res.body.items[0]?.status === 'success' ? res.body.items[0] : undefined;
    }, 5000, 'a scheduled nightly-batch run');
    expect(batch.runId).toMatch(/^nightly-batch:\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z$/);
    expect(batch.source).toBe('scheduler');
    expect(batch.result.result).toEqual({ itemsConsidered: 0, selectedForDraft: 0, manualReviewApprovals: 0, promotionApprovals: 0 });
  });

  it('records the startup run with its result fields at every start', async () => {
    const startup = await waitFor(async () => {
      const res = await api.get('/api/tasks/runs?includeInternal=true&type=startup');
      return res.body.items[0]?.status === 'success' ? res.body.items[0] : undefined;
    });
    expect(startup.result.result).toMatchObject({ configLoaded: true, stateInitialized: true, docsIndexed: expect.any(Number) });
  });

  it('runs drift-repair through its worker and refuses clearly when there is no docs folder, never with a fake success', async () => {
    const res = await api.trigger('drift-repair', { idempotencyKey: 'repair-without-docs' });
    expect(res.status).toBe(202);
    const run = await waitForTerminal(api, 'repair-without-docs');
    expect(run.status).toBe('failed');
    expect(run.error).toMatch(/the docs folder does not exist/);
  });
});
