import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../src/clock.js';
import { createWakeSignal } from '../../src/domain/wake-signal.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { TASK_CATALOG, type CatalogEntry } from '../../src/runtime/catalog.js';
import { bindHandler } from '../../src/runtime/handler-types.js';
import { createLaneRegistry, type LaneDefinition } from '../../src/runtime/lanes.js';
import { createTaskRuntime, type TaskRuntime } from '../../src/runtime/runtime.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import type { WorkerRequest, WorkerOutcome } from '../../src/runtime/worker-port.js';
import { tempDir, testConfig } from '../support/config.js';
import { testLaneRegistry } from '../support/lanes.js';
import { REPO_ROOT } from '../support/paths.js';

/** The fixture lane: a worker type of the catalog that registers no hook in the service itself. */
const FIXTURE_TYPE = 'summarize-content';

async function until(check: () => Promise<boolean> | boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Calls {
  beforeSpawn: string[];
  workerInput: string[];
  afterFinish: RunRecord[];
  approvalImpact: string[];
  onFailure: string[];
  spawned: WorkerRequest[];
}

describe('lane hooks through the runtime', () => {
  let store: StateStore | null = null;
  let runtime: TaskRuntime | null = null;
  afterEach(async () => {
    await runtime?.stop(0);
    await store?.close();
    runtime = null;
    store = null;
  });

  /** A runtime whose only registered lane is the fixture, with every hook, over a fake spawner. */
  async function setUp(options: { block?: (run: RunRecord) => boolean; workerOk?: boolean } = {}) {
    const dir = tempDir('lane-hooks-');
    const config = { ...testConfig({}, dir), concurrency: 2, typeConcurrency: {} };
    store = openStateStore(join(dir, 'state.json'));
    await store.open();
    const calls: Calls = { beforeSpawn: [], workerInput: [], afterFinish: [], approvalImpact: [], onFailure: [], spawned: [] };
    const fixture: LaneDefinition = {
      type: FIXTURE_TYPE,
      async beforeSpawn(run) {
        calls.beforeSpawn.push(run.runId);
        if (options.block?.(run)) {
          return {
            blocked: { reason: 'fixture gate said no', result: { success: false }, operatorSummary: 'blocked by the fixture', recommendedNextActions: [], specialistContract: null },
          };
        }
        return { input: { __fixtureGate: { claimed: run.runId } }, onFailure: async () => void calls.onFailure.push(run.runId) };
      },
      workerInput(run) {
        calls.workerInput.push(run.runId);
        return { __fixturePolicy: { strict: true } };
      },
      async afterFinish(run) {
        calls.afterFinish.push(run);
      },
      approvalImpact(run, impact) {
        calls.approvalImpact.push(run.runId);
        return { ...impact, caveats: ['fixture caveat', ...impact.caveats] };
      },
    };
    const spawner = {
      async run(request: WorkerRequest): Promise<WorkerOutcome> {
        calls.spawned.push(request);
        const ok = options.workerOk ?? true;
        return {
          ok,
          result: { success: ok, operatorSummary: ok ? 'fixture summary' : 'fixture failure' },
          error: ok ? null : 'fixture worker failed',
          failure: ok ? null : 'logical-failure',
          exitCode: 0,
          signal: null,
          durationMs: 1,
          pid: 1,
        };
      },
    };
    const readyRuns = createWakeSignal();
    const invalidator = { invalidate: async () => undefined };
    const admit = createAdmission({ store, clock: systemClock, invalidator, onReady: () => readyRuns.notify(), telemetryRetention: 100 });
    runtime = createTaskRuntime({
      config,
      store,
      clock: systemClock,
      logger: pino({ level: 'silent' }),
      invalidator,
      admit,
      readyRuns,
      checkTrigger: createTriggerCheck(config.workspaceRoot),
      lanes: testLaneRegistry([fixture]),
      spawner,
      ownerId: 'lane-hooks-test',
    });
    await runtime.start();
    return { calls, admit, store };
  }

  it('calls approvalImpact for a held run, then beforeSpawn, workerInput and afterFinish for its replay', async () => {
    const { calls, store } = await setUp();
    const held = await runtime!.trigger(
      { type: FIXTURE_TYPE, payload: { content: 'Text to summarize. Two sentences.', requiresApproval: true } },
      { actor: 'ops', role: 'operator', apiKeyLabel: 'ops', apiKeyExpiresAt: null },
    );
    const pending = await runtime!.approvals.listPending();
    expect(pending.pending[0]?.impact?.caveats[0]).toBe('fixture caveat');
    expect(calls.approvalImpact).toEqual([held.run.runId]);
    expect(calls.spawned).toHaveLength(0);

    const decision = await runtime!.approvals.decide(held.run.taskId, 'approved', null, { actor: 'lead', role: 'operator', apiKeyLabel: 'lead', apiKeyExpiresAt: null });
    const replayRunId = decision.replayRunId!;
    await until(async () => (await store.getRun(replayRunId))?.status === 'success', 'the replay to succeed');
    await until(() => calls.afterFinish.some((r) => r.runId === replayRunId), 'the after-finish hook');

    expect(calls.beforeSpawn).toEqual([replayRunId]);
    expect(calls.workerInput).toEqual([replayRunId]);
    expect(calls.spawned).toHaveLength(1);
    expect(calls.spawned[0]!.payload).toMatchObject({
      content: 'Text to summarize. Two sentences.',
      __fixtureGate: { claimed: replayRunId },
      __fixturePolicy: { strict: true },
    });
    const finished = calls.afterFinish.find((r) => r.runId === replayRunId)!;
    expect(finished.status).toBe('success');
    expect(finished.operatorSummary).toBe('fixture summary');
    expect(calls.onFailure).toEqual([]);
  });

  it('records a run the gate blocked as coordination-blocked, spawning nothing', async () => {
    const { calls, admit, store } = await setUp({ block: () => true });
    const { run } = await admit({ type: FIXTURE_TYPE, payload: { content: 'x' }, source: 'api', requestedBy: 'ops' });
    await until(async () => (await store.getRun(run.runId))?.status === 'failed', 'the blocked run to fail');
    const stored = (await store.getRun(run.runId))!;
    expect(stored.failureReason).toBe('coordination-blocked');
    expect(stored.queueAttempts.map((a) => a.state)).toContain('coordination-blocked');
    expect(stored.operatorSummary).toBe('blocked by the fixture');
    expect(calls.spawned).toHaveLength(0);
    expect(calls.workerInput).toEqual([]);
    await until(() => calls.afterFinish.length === 1, 'the after-finish hook of the blocked run');
  });

  it('tells the gate when the worker failed, so it can give back what it took', async () => {
    const { calls, admit, store } = await setUp({ workerOk: false });
    const { run } = await admit({ type: FIXTURE_TYPE, payload: { content: 'x' }, source: 'api', requestedBy: 'ops' });
    await until(async () => (await store.getRun(run.runId))?.status === 'failed', 'the run to fail');
    expect(calls.onFailure).toEqual([run.runId]);
  });
});

describe('the lane registry', () => {
  const handler = bindHandler(async () => ({ status: 'completed' as const }), null);

  it('refuses hooks of a type the catalog does not know', () => {
    expect(() => createLaneRegistry(TASK_CATALOG, [{ type: 'no-such-type', afterFinish: async () => undefined }])).toThrow(/unknown task type no-such-type/);
  });

  it('refuses a handler for a worker lane and spawn hooks for an in-process one', () => {
    const workerOnly = TASK_CATALOG.filter((e) => e.type === FIXTURE_TYPE);
    expect(() => createLaneRegistry(workerOnly, [{ type: FIXTURE_TYPE, handler }])).toThrow(/runs as a worker/);
    const handlerOnly = TASK_CATALOG.filter((e) => e.type === 'nightly-batch');
    expect(() => createLaneRegistry(handlerOnly, [{ type: 'nightly-batch', handler, workerInput: () => ({}) }])).toThrow(/runs in-process/);
  });

  it('refuses a hook registered twice and an in-process type without a handler', () => {
    const entries: CatalogEntry[] = TASK_CATALOG.filter((e) => e.type === 'nightly-batch' || e.type === FIXTURE_TYPE);
    expect(() =>
      createLaneRegistry(entries, [
        { type: 'nightly-batch', handler },
        { type: FIXTURE_TYPE, afterFinish: async () => undefined },
        { type: FIXTURE_TYPE, afterFinish: async () => undefined },
      ]),
    ).toThrow(/registered its afterFinish twice/);
    expect(() => createLaneRegistry(entries, [])).toThrow(/nightly-batch has no registered handler/);
  });

  it("has the trigger check ask a lane's admission check after its own checks, and refuse with its problems", () => {
    const asked: Array<Record<string, unknown>> = [];
    const lanes = testLaneRegistry([
      {
        type: FIXTURE_TYPE,
        admissionCheck: (payload) => {
          asked.push(payload);
          return payload.content === 'unusable' ? [{ path: '/config/fixtureSetting', message: 'fixtureSetting is not configured' }] : [];
        },
      },
    ]);
    const check = createTriggerCheck(tempDir('trigger-check-'), lanes);
    expect(check({ type: FIXTURE_TYPE, payload: { content: 'fine' } }).payload).toEqual({ content: 'fine' });
    expect(() => check({ type: FIXTURE_TYPE, payload: { content: 'unusable' } })).toThrow(
      expect.objectContaining({ code: 'invalid_request', message: `${FIXTURE_TYPE} cannot run: fixtureSetting is not configured`, details: [{ path: '/config/fixtureSetting', message: 'fixtureSetting is not configured' }] }),
    );
    // A payload its schema refuses never reaches the lane's check.
    expect(() => check({ type: FIXTURE_TYPE, payload: {} })).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(asked).toEqual([{ content: 'fine' }, { content: 'unusable' }]);
    // Types whose lanes register no check pass as before.
    expect(check({ type: 'code-index', payload: { scope: '.' } }).type).toBe('code-index');
  });

  it('merges the hooks a type registers from several places', () => {
    const entries = TASK_CATALOG.filter((e) => e.type === FIXTURE_TYPE);
    const lanes = createLaneRegistry(entries, [
      { type: FIXTURE_TYPE, workerInput: () => ({}) },
      { type: FIXTURE_TYPE, afterFinish: async () => undefined },
    ]);
    expect(lanes.get(FIXTURE_TYPE).workerInput).toBeTypeOf('function');
    expect(lanes.get(FIXTURE_TYPE).afterFinish).toBeTypeOf('function');
    expect(lanes.get('code-index')).toEqual({ type: 'code-index' });
  });
});

describe('the generic runtime', () => {
  it('names no task type in admission, runner, executor, finalize, the trigger check or the runtime', () => {
    const files = ['executor', 'runner', 'runtime', 'admission', 'finalize', 'trigger-check'].map((name) => join(REPO_ROOT, 'src', 'runtime', `${name}.ts`));
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      for (const { type } of TASK_CATALOG) {
        expect(source.includes(`'${type}'`) || source.includes(`"${type}"`) || new RegExp(`\\b${type}\\b`).test(source), `${file} names ${type}`).toBe(false);
      }
    }
  });
});
