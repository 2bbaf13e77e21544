import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { composeService } from '../../src/app.js';
import type { Clock } from '../../src/clock.js';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { buildServer } from '../../src/http/server.js';
import { createMetrics } from '../../src/metrics.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { fixedClock } from '../support/clocks.js';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { bearer, TEST_KEYS } from '../support/keys.js';
import { makeRun } from '../support/runs.js';

/** A feeds file rss-sweep can load; the feed itself is never fetched by these tests. */
const FEEDS = JSON.stringify({ feeds: [{ url: 'http://127.0.0.1:9/feed.xml' }] });
const START = '2026-03-01T10:00:00.500Z';

interface Composed {
  dir: string;
  store: StateStore;
  server: FastifyInstance;
  service: ReturnType<typeof composeService>;
  clock: ReturnType<typeof fixedClock>;
  /** Starts the runner: admitted runs execute. */
  startRuntime(): Promise<void>;
}

const running: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const instance of running.splice(0)) await instance.close();
});

/**
 * The whole service composed in-process over a fresh folder (nothing started unless a test
 * starts the runtime): `fields` are the config file's. Templates live in `<dir>/templates`.
 */
async function compose(fields: Record<string, unknown> = {}, prepare: (dir: string) => void = () => undefined): Promise<Composed> {
  const dir = tempDir('admission-checks-');
  mkdirSync(join(dir, 'templates', 'doc-specialist'), { recursive: true });
  writeFileSync(join(dir, 'templates', 'doc-specialist', 'SOUL.md'), '# Doc specialist');
  prepare(dir);
  const file = writeConfigFile(dir, { agentsDir: 'templates', schedulerEnabled: false, docWatcher: false, retry: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 }, ...fields });
  const config = testConfig({ ORCHESTRATOR_CONFIG: file }, dir);
  const logger = pino({ level: 'silent' });
  const store = openStateStore(config.stateTarget, { logger });
  await store.open();
  const coordination = new MemoryCoordination({ cacheMaxEntries: 100, cacheMaxBytes: 1_000_000 });
  const clock = fixedClock(START);
  const service = composeService({ config, logger, clock: clock as Clock, store, coordination, metricsPort: null });
  const server = await buildServer({ config, coordination, logger, metrics: createMetrics() }, service.routes);
  let runtimeStarted = false;
  running.push({
    async close() {
      await service.events.close();
      await server.close();
      if (runtimeStarted) await service.runtime.stop(2000);
      await store.close();
    },
  });
  return {
    dir,
    store,
    server,
    service,
    clock,
    async startRuntime() {
      runtimeStarted = true;
      await service.runtime.start();
    },
  };
}

async function post(instance: Composed, url: string, body: unknown) {
  const res = await instance.server.inject({ method: 'POST', url, headers: bearer(TEST_KEYS.operator), payload: body as object });
  return { status: res.statusCode, body: res.json() };
}

const allRuns = async (store: StateStore) => (await store.listRuns({ includeInternal: true, limit: 100 })).items;

async function settled(store: StateStore, runId: string): Promise<RunRecord> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const run = await store.getRun(runId);
    if (run && (run.status === 'failed' || run.status === 'success' || run.status === 'retrying')) return run;
    if (Date.now() > deadline) throw new Error(`run ${runId} did not settle: ${run?.status ?? 'missing'}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('lane admission checks', () => {
  it('refuse a run that can only fail with 400 naming the setting or field, on the trigger, rerun and schedule routes, storing nothing', async () => {
    const instance = await compose();
    const refusals = [
      { type: 'rss-sweep', payload: {}, path: '/config/rssConfigPath', says: 'rssConfigPath is not configured' },
      { type: 'send-digest', payload: {}, path: '/config/digestTargetUrl', says: 'no notification target configured (set digestTargetUrl or digestTargetFile)' },
      { type: 'agent-deploy', payload: { agentName: 'ghost' }, path: '/body/payload/agentName', says: "unknown agent template 'ghost': no template directory at agents/ghost" },
      { type: 'agent-deploy', payload: { agentName: 'custom', templatePath: 'templates/none' }, path: '/body/payload/templatePath', says: 'no template directory at templates/none' },
    ];
    for (const refusal of refusals) {
      const answer = await post(instance, '/api/tasks/trigger', { type: refusal.type, payload: refusal.payload });
      expect(answer.status, refusal.type).toBe(400);
      expect(answer.body.error).toMatchObject({
        code: 'invalid_request',
        message: expect.stringContaining(`${refusal.type} cannot run: `),
        requestId: expect.any(String),
        details: [{ path: refusal.path, message: expect.stringContaining(refusal.says) }],
      });
      const scheduled = await post(instance, '/api/schedules', { id: `s-${refusal.type}`, cron: '*/10 * * * * *', type: refusal.type, payload: refusal.payload });
      expect(scheduled.status, `schedule of ${refusal.type}`).toBe(400);
      expect(scheduled.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: refusal.path, message: expect.stringContaining(refusal.says) }] });
    }
    // Nothing stored: no run, no held approval, no schedule.
    expect(await allRuns(instance.store)).toEqual([]);
    expect((await instance.store.listRuns({ queueState: 'held', includeInternal: true })).total).toBe(0);
    expect((await instance.service.schedules.service.list()).schedules.filter((s) => !s.builtIn)).toEqual([]);

    // A run stored before (an older build's, or before the setting went away) is not rerun either.
    const old = makeRun({ runId: 'old-sweep', type: 'rss-sweep', status: 'failed', queueState: null, error: 'rssConfigPath is not configured' });
    await instance.store.mutateRun(old.runId, () => old);
    const rerun = await post(instance, '/api/tasks/runs/old-sweep/rerun', {});
    expect(rerun.status).toBe(400);
    expect(rerun.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: '/config/rssConfigPath' }] });
    expect((await allRuns(instance.store)).map((r) => r.runId)).toEqual(['old-sweep']);
  });

  it('admit what can run: a configured rss-sweep, a digest with a target, an agent-deploy of a template that is there (held for approval)', async () => {
    const instance = await compose({ rssConfigPath: 'feeds.json', digestTargetFile: 'outbox/digests.jsonl' }, (dir) => writeFileSync(join(dir, 'feeds.json'), FEEDS));
    expect((await post(instance, '/api/tasks/trigger', { type: 'rss-sweep', payload: { idempotencyKey: 'sweep-ok' } })).status).toBe(202);
    expect((await post(instance, '/api/tasks/trigger', { type: 'send-digest', payload: { idempotencyKey: 'digest-ok' } })).status).toBe(202);
    const deploy = await post(instance, '/api/tasks/trigger', { type: 'agent-deploy', payload: { agentName: 'doc-specialist', idempotencyKey: 'deploy-ok' } });
    expect(deploy.status).toBe(202);
    expect(await instance.store.getRun('deploy-ok')).toMatchObject({ queueState: 'held' });
  });

  it('refuse an invalid feeds file and a webhook target that is no http(s) URL', async () => {
    const instance = await compose({ rssConfigPath: 'feeds.json', digestTargetUrl: 'ftp://127.0.0.1/digest' }, (dir) => writeFileSync(join(dir, 'feeds.json'), '{"feeds": []}'));
    const sweep = await post(instance, '/api/tasks/trigger', { type: 'rss-sweep', payload: {} });
    expect(sweep.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: '/config/rssConfigPath', message: expect.stringContaining('rssConfigPath is not usable: rss config outside:feeds.json is invalid') }] });
    const digest = await post(instance, '/api/tasks/trigger', { type: 'send-digest', payload: {} });
    expect(digest.body.error).toMatchObject({ code: 'invalid_request', details: [{ path: '/config/digestTargetUrl', message: 'digestTargetUrl must be http or https, not ftp' }] });
    expect(await allRuns(instance.store)).toEqual([]);
  });

  it('skip a schedule firing whose run could only fail, recording why on the schedule', async () => {
    const instance = await compose({ rssConfigPath: 'feeds.json' }, (dir) => writeFileSync(join(dir, 'feeds.json'), FEEDS));
    const { service, clock, store, dir } = instance;
    await service.schedules.service.create({ id: 'sweeps', cron: '*/10 * * * * *', type: 'rss-sweep' }, 'ops');
    rmSync(join(dir, 'feeds.json'));
    clock.set('2026-03-01T10:00:10.002Z');
    await service.schedules.timer.tick();
    expect(await allRuns(store)).toEqual([]);
    expect(await service.schedules.service.get('sweeps')).toMatchObject({
      lastRunId: null,
      lastSkippedAt: '2026-03-01T10:00:10.000Z',
      lastSkipReason: expect.stringMatching(/^refused: rss-sweep cannot run: rssConfigPath is not usable: rss config outside:feeds\.json cannot be read \(ENOENT\)/),
    });
  });
});

describe('a configuration refusal when the run executes', () => {
  it('fails rss-sweep at its first attempt, naming rssConfigPath, when the feeds file went away after admission', async () => {
    const instance = await compose({ rssConfigPath: 'feeds.json' }, (dir) => writeFileSync(join(dir, 'feeds.json'), FEEDS));
    expect((await post(instance, '/api/tasks/trigger', { type: 'rss-sweep', payload: { idempotencyKey: 'sweep-gone' } })).status).toBe(202);
    rmSync(join(instance.dir, 'feeds.json'));
    await instance.startRuntime();
    const run = await settled(instance.store, 'sweep-gone');
    expect(run).toMatchObject({ status: 'failed', attempt: 1, retry: null, failureReason: 'invalid_config', error: expect.stringMatching(/^rssConfigPath is not usable: rss config outside:feeds\.json cannot be read \(ENOENT\)$/) });
    expect(run.queueAttempts.filter((a) => a.state === 'admitted')).toHaveLength(1);
  });

  it('fails send-digest at its first attempt, naming the target settings, when it runs without a target', async () => {
    const instance = await compose();
    // Admitted on a path with no trigger check of its own, as a run queued before the setting was removed would be.
    await instance.service.admit({ type: 'send-digest', payload: {}, source: 'system', requestedBy: 'system', forceRunId: 'digest-no-target' });
    await instance.startRuntime();
    const run = await settled(instance.store, 'digest-no-target');
    expect(run).toMatchObject({ status: 'failed', attempt: 1, retry: null, failureReason: 'invalid_config', error: 'no notification target configured (set digestTargetUrl or digestTargetFile)' });
  });
});
