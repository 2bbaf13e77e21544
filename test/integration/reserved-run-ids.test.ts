import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge } from '../../bridge/index.js';
import { SERVICE_RUN_ID_PREFIXES } from '../../src/domain/service-run-ids.js';
import { orch } from '../support/cli.js';
import { tempDir } from '../support/config.js';
import { waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * The run ids the service makes for itself cannot be taken by a client, on any path that takes an
 * idempotency key: the trigger route, a rerun, the command line and the chat bridge.
 */
describe('run ids the service makes are reserved', () => {
  let svc: RuntimeService;
  beforeAll(async () => {
    svc = await startRuntimeService();
  });
  afterAll(async () => {
    await svc?.service.kill();
  });

  /** Nothing was stored under `runId`. */
  const absent = async (runId: string) => expect((await svc.api.run(runId)).status, runId).toBe(404);

  it('the trigger route refuses every reserved prefix with 400 reserved_field naming it, and stores nothing', async () => {
    const prefixes = Object.values(SERVICE_RUN_ID_PREFIXES);
    expect(prefixes).toEqual(expect.arrayContaining(['schedule:', 'flow:', 'approval-replay:', 'incident:']));
    for (const prefix of prefixes) {
      const key = `${prefix}taken-by-a-client`;
      const res = await svc.api.trigger('summarize-content', { content: 'x', idempotencyKey: key });
      expect(res.status, key).toBe(400);
      expect(res.body.error).toMatchObject({
        code: 'reserved_field',
        message: `payload.idempotencyKey starts with '${prefix}', a prefix the service reserves for its own run ids`,
        requestId: expect.any(String),
        details: [{ path: '/body/payload/idempotencyKey', message: expect.stringContaining(prefix) }],
      });
      await absent(key);
    }
    // A workflow names its steps after itself: their ending is reserved too.
    const step = await svc.api.trigger('summarize-content', { content: 'x', idempotencyKey: 'some-workflow:step-1' });
    expect(step.status).toBe(400);
    expect(step.body.error.message).toContain("':step-<n>'");
    await absent('some-workflow:step-1');
  });

  it('a rerun, the command line and the bridge are refused the same way', async () => {
    const original = await svc.api.trigger('summarize-content', { content: 'original', idempotencyKey: 'reserved-ids-original' });
    expect(original.status).toBe(202);
    await waitForTerminal(svc.api, 'reserved-ids-original');

    const rerun = await svc.api.post('/api/tasks/runs/reserved-ids-original/rerun', { idempotencyKey: 'schedule:nightly:2030-01-01T00:00:00.000Z' });
    expect(rerun.status).toBe(400);
    expect(rerun.body.error).toMatchObject({ code: 'reserved_field', message: expect.stringContaining("'schedule:'") });
    await absent('schedule:nightly:2030-01-01T00:00:00.000Z');
    expect((await svc.api.run('reserved-ids-original')).body.reruns).toEqual([]);

    const env = { ORCH_URL: svc.service.url, ORCH_API_KEY: TEST_KEYS.operator, XDG_CONFIG_HOME: tempDir('orch-reserved-') };
    const run = await orch(['run', 'summarize-content', 'content=x', '--key', 'incident:cli-1'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^orch: reserved_field: payload\.idempotencyKey starts with 'incident:'/);
    await absent('incident:cli-1');
    const again = await orch(['rerun', 'reserved-ids-original', '--key', 'approval-replay:cli-2'], env);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/^orch: reserved_field: .*'approval-replay:'/);
    await absent('approval-replay:cli-2');

    const bridge = createBridge({ url: svc.service.url, users: { alice: TEST_KEYS.operator } });
    const reply = await bridge.handle('/orch run summarize-content content=x idempotencyKey=flow:bridge-1', { user: 'alice', channel: 'ops' });
    expect(reply).toMatch(/^Refused \(reserved_field\): .*'flow:'/);
    await absent('flow:bridge-1');
  }, 30_000);
});
