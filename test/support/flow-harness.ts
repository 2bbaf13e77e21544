import { join } from 'node:path';
import pino from 'pino';
import { afterEach } from 'vitest';
import { createFlowService } from '../../src/flows/flow-service.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { accountingFor } from '../../src/runtime/accounting.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { createApprovals } from '../../src/runtime/approvals.js';
import { createRunCancel } from '../../src/runtime/run-cancel.js';
import { markFailed, markRunning, markSucceeded } from '../../src/runtime/run-transitions.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { tempDir } from './config.js';
import { OPERATOR, operator } from './identities.js';
import { testLaneRegistry } from './lanes.js';

/** A flow step of an in-process type whose payload is valid as it is. */
export const summarizeStep = (key: string, dependsOn: string[] = [], extra: Record<string, unknown> = {}) => ({
  key,
  type: 'summarize-content',
  payload: { content: `text of ${key}` },
  dependsOn,
  ...extra,
});

/**
 * The flows module over a real store with the real admission and run cancel, no runner: a test
 * plays the runner (`start`, `finish`), and each finish is told to the flows as the runtime tells it.
 */
export function flowHarness(store: StateStore) {
  const clock = { now: () => new Date() };
  const invalidator = { invalidate: async () => undefined };
  const logger = pino({ level: 'silent' });
  let readyCalls = 0;
  const admit = createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100 });
  const cancels = createRunCancel({ store, clock, logger, invalidator, stopLocal: () => false, onRunFinished: (run) => flows.onRunSettled(run) });
  const approvals = createApprovals({ store, clock, invalidator, admit, lanes: testLaneRegistry(), logger, onDecided: (run) => flows.onRunSettled(run) });
  const flows = createFlowService({
    store,
    clock,
    logger,
    invalidator,
    admit,
    checkTrigger: createTriggerCheck(join(tempDir('orch-flow-ws-'), 'workspace')),
    onReady: () => {
      readyCalls += 1;
    },
    cancelRun: (runId, reason, identity) => cancels.cancel(runId, reason, identity),
  });

  /** Claims the run as a runner would (only a `ready` run can be claimed by id here too). */
  async function start(runId: string): Promise<RunRecord> {
    const now = new Date();
    const written = await store.mutateRun(runId, (run) => (run && run.queueState === 'ready' ? markRunning(run, 'owner', new Date(now.getTime() + 60_000), now) : null));
    if (!written.changed) throw new Error(`${runId} is not ready (${written.before?.status}/${written.before?.queueState})`);
    return written.after!;
  }

  /** Ends a running (or ready: it is started first) run and tells the flows. */
  async function finish(runId: string, ok: boolean, result: unknown = {}): Promise<RunRecord> {
    const current = await store.getRun(runId);
    if (current?.status !== 'running') await start(runId);
    const now = new Date();
    const written = await store.mutateRun(runId, (run) => {
      if (!run) return null;
      const fields = { result, accounting: accountingFor(undefined, 0), operatorSummary: null, recommendedNextActions: null, specialistContract: null };
      return ok ? markSucceeded(run, now, fields) : markFailed(run, now, { ...fields, error: 'boom', failureReason: 'worker-logical-failure', retry: null });
    });
    await flows.onRunSettled(written.after!);
    return written.after!;
  }

  /** Each step's state by key. */
  async function states(flowId: string): Promise<Record<string, string>> {
    const view = await flows.get(flowId);
    return Object.fromEntries(view.steps.map((s) => [s.key, s.state]));
  }

  /** Decides a held step's approval as another operator (the requester may not approve their own). */
  async function decide(runId: string, decision: 'approved' | 'rejected') {
    const held = (await store.getRun(runId))!;
    return approvals.decide(held.taskId, decision, null, operator('lead'));
  }

  return {
    store,
    admit,
    flows,
    start,
    finish,
    states,
    decide,
    cancelRun: (runId: string) => cancels.cancel(runId, null, OPERATOR),
    readyCalls: () => readyCalls,
  };
}

/**
 * For a describe block: `setup()` opens a fresh file store and its harness; the store is closed
 * after each test.
 */
export function fileFlowHarnesses(prefix: string): () => Promise<ReturnType<typeof flowHarness>> {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });
  return async () => {
    store = openStateStore(join(tempDir(prefix), 'state.json'));
    await store.open();
    return flowHarness(store);
  };
}
