import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { createApprovalPolicy, decisionRefusal } from '../../src/runtime/approval-policy.js';
import { createApprovals } from '../../src/runtime/approvals.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { finalizeAttempt } from '../../src/runtime/finalize.js';
import { createRerun } from '../../src/runtime/rerun.js';
import { markRunning } from '../../src/runtime/run-transitions.js';
import { toRunView } from '../../src/runtime/run-view.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import { createWorkflowDriver } from '../../src/lanes/integration-workflow/driver.js';
import { planIntegrationWorkflow } from '../../agents/integration-agent/integration-workflow.js';
import { manualClock } from '../support/clocks.js';
import { tempDir } from '../support/config.js';
import { operator } from '../support/identities.js';
import { testLaneRegistry } from '../support/lanes.js';
import { makeRun } from '../support/runs.js';

const silent = pino({ level: 'silent' });
/** Operators A, B and C; self-approval is off for every type. */
const A = operator('ops-a');
const B = operator('ops-b');
const C = operator('ops-c');
const NO_SELF_APPROVAL = createApprovalPolicy({ default: { allowSelfApproval: false } }, TASK_CATALOG.map((e) => e.type));

describe('the requesters of work admitted on someone\'s behalf, under allowSelfApproval false', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function setup() {
    const base = tempDir('approval-requesters-');
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const s = store;
    const clock = manualClock('2026-03-01T10:00:00.000Z');
    const invalidator = { invalidate: async () => undefined };
    const admit = createAdmission({ store: s, clock, invalidator, onReady: () => undefined, telemetryRetention: 100, approvalPolicy: NO_SELF_APPROVAL });
    const approvals = createApprovals({ store: s, clock, invalidator, admit, lanes: testLaneRegistry(), policy: NO_SELF_APPROVAL, logger: silent });
    const rerun = createRerun({ store: s, admit, checkTrigger: createTriggerCheck(join(base, 'workspace')), invalidator });
    const driver = createWorkflowDriver({ store: s, logger: silent, invalidator, admit, workspaceRoot: join(base, 'workspace'), now: () => clock.now() });
    /** A run of A's, held for approval. */
    const heldOfA = async () => (await admit({ type: 'system-monitor', payload: { requiresApproval: true }, source: 'api', requestedBy: A.actor })).run;
    /** Finishes a run as a success, with `fields` of the outcome (follow-ups, result). */
    const succeed = async (run: RunRecord, fields: { result?: unknown; followUps?: Array<{ type: string; payload: Record<string, unknown> }> } = {}) => {
      const now = clock.now();
      const running = (await s.mutateRun(run.runId, (current) => (current ? markRunning(current, 'owner', new Date(now.getTime() + 60_000), now) : null))).after!;
      const outcome = { ok: true, result: fields.result ?? { success: true }, error: null, failureReason: null, transient: false, durationMs: 1, operatorSummary: null, recommendedNextActions: null, specialistContract: null, followUps: fields.followUps };
      const deps = { config: { retry: { maxAttempts: 1, baseDelayMs: 1, maxDelayMs: 1 } }, store: s, clock, logger: silent, invalidator, admit, onRunFinished: driver.onRunFinished };
      return (await finalizeAttempt(deps, running, false, outcome, (current): current is RunRecord => current !== null && current.status === 'running'))!;
    };
    return { store: s, admit, approvals, rerun, heldOfA, succeed };
  }

  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => null,
      (err: unknown) => (err instanceof DomainError ? `${err.code}: ${err.message}` : String(err)),
    );

  it('a rerun by B of A\'s run is requested by both: neither may decide it, C may', async () => {
    const { rerun, approvals, heldOfA, store } = await setup();
    const original = await heldOfA();
    const again = await rerun(original.runId, {}, B);
    expect(again.run).toMatchObject({ requestedBy: 'ops-b', requesters: ['ops-b', 'ops-a'], queueState: 'held' });
    expect(again.run.approval).toMatchObject({ requestedBy: 'ops-b', requesters: ['ops-b', 'ops-a'] });
    expect(toRunView(again.run)).toMatchObject({ requesters: ['ops-b', 'ops-a'], approval: { requesters: ['ops-b', 'ops-a'] } });

    expect(await refusal(approvals.decide(again.run.taskId, 'approved', null, B))).toMatch(/^forbidden: ops-b requested this system-monitor run and .* \(its requesters: ops-b, ops-a\)$/);
    expect(await refusal(approvals.decide(again.run.taskId, 'approved', null, A))).toMatch(/^forbidden: ops-a requested this system-monitor run/);
    expect((await store.getRun(again.run.runId))!.approval.status).toBe('pending');
    const pending = (await approvals.listPending()).pending.find((p) => p.taskId === again.run.taskId);
    expect(pending).toMatchObject({ requestedBy: 'ops-b', requesters: ['ops-b', 'ops-a'] });

    const decided = await approvals.decide(again.run.taskId, 'approved', null, C);
    expect(decided.approval).toMatchObject({ status: 'approved', decidedBy: 'ops-c', requesters: ['ops-b', 'ops-a'] });
  });

  it('an approval replay stays its requesters\' work, not its decider\'s: a rerun of it by B needs a third operator, who may be the first decider', async () => {
    const { rerun, approvals, heldOfA, store } = await setup();
    const held = await heldOfA();
    const { replayRunId } = await approvals.decide(held.taskId, 'approved', null, C);
    const replay = (await store.getRun(replayRunId!))!;
    expect(replay).toMatchObject({ source: 'approval-replay', requestedBy: 'ops-c', requesters: ['ops-a'] });

    // The replay carries the held payload (requiresApproval): its rerun is held again.
    const again = await rerun(replay.runId, {}, B);
    expect(again.run.approval.requesters).toEqual(['ops-b', 'ops-a']);
    expect(await refusal(approvals.decide(again.run.taskId, 'approved', null, A))).toMatch(/^forbidden: /);
    expect(await refusal(approvals.decide(again.run.taskId, 'rejected', null, B))).toMatch(/^forbidden: /);
    expect((await approvals.decide(again.run.taskId, 'approved', null, C)).approval.decidedBy).toBe('ops-c');
  });

  it('an integration workflow\'s steps are requested by the workflow\'s requesters', async () => {
    const { admit, rerun, succeed, approvals, store } = await setup();
    const steps = [{ type: 'summarize-content', payload: { content: 'A text.', requiresApproval: true } }];
    const first = await admit({ type: 'integration-workflow', payload: { steps }, source: 'api', requestedBy: A.actor, forceRunId: 'wf-a' });
    // B asks for A's workflow again: its steps are asked for by both.
    const workflow = (await rerun(first.run.runId, { idempotencyKey: 'wf-b' }, B)).run;
    const plan = planIntegrationWorkflow({ steps }, { workspaceRoot: '/w', runId: workflow.runId });
    await succeed(workflow, { result: plan });
    const step = (await store.getRun('wf-b:step-1'))!;
    expect(step).toMatchObject({ source: 'workflow', queueState: 'held', requesters: ['workflow:wf-b', 'ops-b', 'ops-a'] });
    expect(await refusal(approvals.decide(step.taskId, 'approved', null, B))).toMatch(/^forbidden: /);
    expect(await refusal(approvals.decide(step.taskId, 'approved', null, A))).toMatch(/^forbidden: /);
  });

  it('a follow-up a run admits is requested by the run\'s requesters', async () => {
    const { rerun, succeed, approvals, heldOfA, store } = await setup();
    const byB = await rerun((await heldOfA()).runId, { payload: { requiresApproval: null } }, B);
    await succeed(byB.run, { followUps: [{ type: 'system-monitor', payload: { requiresApproval: true, idempotencyKey: 'follow-up-1' } }] });
    const followUp = (await store.getRun('follow-up-1'))!;
    expect(followUp).toMatchObject({ requestedBy: 'task:system-monitor', requesters: ['task:system-monitor', 'ops-b', 'ops-a'], queueState: 'held' });
    expect(await refusal(approvals.decide(followUp.taskId, 'approved', null, A))).toMatch(/^forbidden: /);
  });

  it('judges an approval held before requesters were recorded by its requester alone', () => {
    const policy = NO_SELF_APPROVAL.forType('system-monitor');
    const old = makeRun({ type: 'system-monitor', requestedBy: 'ops-a', queueState: 'held' });
    old.approval = { ...old.approval, required: true, status: 'pending', requestedBy: 'ops-a' };
    delete old.requesters;
    delete old.approval.requesters;
    expect(decisionRefusal(policy, old, A)).toMatch(/ops-a requested this system-monitor run/);
    expect(decisionRefusal(policy, old, B)).toBeNull();
  });
});
