import { join } from 'node:path';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { openStateStore } from '../../src/store/open.js';
import type { StateStore } from '../../src/store/types.js';
import { accountingFor } from '../../src/runtime/accounting.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { markFailed, markRunning, markSucceeded } from '../../src/runtime/run-transitions.js';
import { applyCancelRequest } from '../../src/runtime/run-cancellation.js';
import { toRunView } from '../../src/runtime/run-view.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { createWorkflowDriver } from '../../src/lanes/integration-workflow/driver.js';
import { planIntegrationWorkflow } from '../../agents/integration-agent/integration-workflow.js';
import type { StepInput } from '../../agents/integration-agent/normalize-steps.js';
import { tempDir } from '../support/config.js';

const NOW = new Date('2026-11-22T12:00:00Z');

describe('workflow driver: steps as child runs, one after another, reroute on failure', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function setup() {
    const base = tempDir();
    store = openStateStore(join(base, 'state.json'));
    await store.open();
    const s = store;
    const admit = createAdmission({
      store: s,
      clock: { now: () => NOW },
      invalidator: { invalidate: async () => undefined },
      onReady: () => undefined,
      telemetryRetention: 100,
    });
    const driver = createWorkflowDriver({
      store: s,
      logger: pino({ level: 'silent' }),
      invalidator: { invalidate: async () => undefined },
      admit,
      workspaceRoot: join(base, 'workspace'),
      now: () => NOW,
    });
    /** Admits a workflow run and finishes it with the lane's real plan for `steps`. */
    async function workflow(runId: string, steps: StepInput[]): Promise<RunRecord> {
      await admit({ type: 'integration-workflow', payload: { steps }, source: 'api', requestedBy: 'ops', forceRunId: runId });
      const plan = planIntegrationWorkflow({ steps }, { workspaceRoot: '/w', runId });
      expect(plan.success).toBe(true);
      return finish(runId, true, plan);
    }
    async function finish(runId: string, ok: boolean, result: unknown = {}): Promise<RunRecord> {
      const written = await s.mutateRun(runId, (run) => {
        if (!run) return null;
        const running = markRunning(run, 'owner', new Date(NOW.getTime() + 60_000), NOW);
        const fields = { result, accounting: accountingFor(undefined, 0), operatorSummary: null, recommendedNextActions: null, specialistContract: null };
        return ok
          ? markSucceeded(running, NOW, fields)
          : markFailed(running, NOW, { ...fields, error: 'boom', failureReason: 'worker-logical-failure', retry: null });
      });
      await driver.onRunFinished(written.after!);
      return (await s.getRun(runId))!;
    }
    return { store: s, admit, driver, workflow, finish };
  }

  const states = (run: RunRecord) => (run.workflowChildren ?? []).map((c) => `${c.role}:${c.type}:${c.state}`);

  it('admits step 1 when the plan is recorded and each next step only after the previous succeeded', async () => {
    const { store, workflow, finish } = await setup();
    let wf = await workflow('wf-1', ['system-monitor: check health', { type: 'summarize-content', payload: { content: 'A text.' } }]);
    expect(states(wf)).toEqual(['step:system-monitor:queued', 'step:summarize-content:waiting']);
    const step1 = (await store.getRun('wf-1:step-1'))!;
    expect(step1).toMatchObject({ type: 'system-monitor', source: 'workflow', workflowParent: { runId: 'wf-1', stepIndex: 0, role: 'step' } });
    expect(await store.getRun('wf-1:step-2')).toBeNull();

    await finish('wf-1:step-1', true);
    wf = (await store.getRun('wf-1'))!;
    expect(states(wf)).toEqual(['step:system-monitor:success', 'step:summarize-content:queued']);
    expect((await store.getRun('wf-1:step-2'))!.payload).toEqual({ content: 'A text.' });

    await finish('wf-1:step-2', true);
    wf = (await store.getRun('wf-1'))!;
    expect(states(wf)).toEqual(['step:system-monitor:success', 'step:summarize-content:success']);
    const view = toRunView(wf);
    expect(view.workflowGraph.dependencySummary).toMatchObject({ steps: 2, succeeded: 2, failed: 0, rerouted: false });
    expect(view.workflowGraph.causalLinks!.map((l) => l.to)).toEqual(['wf-1:step-1', 'wf-1:step-2']);
    expect(toRunView((await store.getRun('wf-1:step-2'))!).workflowGraph.crossRunLinks).toEqual([
      { from: 'wf-1:step-2', to: 'wf-1', relation: 'step-of', stepIndex: 1 },
    ]);
  });

  it('reroutes a failed step, skips the rest, and admits nothing twice when driven again', async () => {
    const { store, driver, workflow, finish } = await setup();
    await workflow('wf-2', [
      { type: 'system-monitor', reroute: 'system-monitor' },
      'incident-triage: rank',
      'control-plane-brief: brief',
    ]);
    await finish('wf-2:step-1', false);
    const wf = (await store.getRun('wf-2'))!;
    expect(states(wf)).toEqual([
      'step:system-monitor:failed',
      'step:incident-triage:skipped',
      'step:control-plane-brief:skipped',
      'reroute:system-monitor:queued',
    ]);
    expect((await store.getRun('wf-2:step-1:reroute'))!.workflowParent).toMatchObject({ role: 'reroute', stepIndex: 0 });
    const before = await store.countRuns(true);
    await driver.advance('wf-2');
    await driver.reconcile();
    expect((await store.countRuns(true)).total).toBe(before.total);
    expect(await store.getRun('wf-2:step-2')).toBeNull();
  });

  it('stops at a cancelled step: the rest are skipped, nothing is rerouted, and the workflow counts as settled', async () => {
    const { store, driver, workflow } = await setup();
    await workflow('wf-c', ['system-monitor: check health', 'incident-triage: rank']);
    const written = await store.mutateRun('wf-c:step-1', (run) => (run ? applyCancelRequest(run, NOW, { actor: 'ops', reason: null }) : null));
    await driver.onRunFinished(written.after!);
    const wf = (await store.getRun('wf-c'))!;
    expect(states(wf)).toEqual(['step:system-monitor:cancelled', 'step:incident-triage:skipped']);
    expect(await store.getRun('wf-c:step-1:reroute')).toBeNull();
    expect(await store.getRun('wf-c:step-2')).toBeNull();
    expect(toRunView(wf).workflowGraph).toMatchObject({ dependencySummary: { cancelled: 1, skipped: 1, inProgress: 0 } });
    // Settled: restart reconcile leaves it as it is.
    expect(await driver.reconcile()).toBe(0);
  });

  it('refuses a step whose payload a client could not send, and reroutes instead of admitting it', async () => {
    const { store, workflow } = await setup();
    const wf = await workflow('wf-3', [
      { type: 'summarize-content', payload: { content: 'x', __controlPlane: { forged: true } } },
      { type: 'security-audit', payload: { scope: '../../etc' } },
    ]);
    expect(states(wf)).toEqual(['step:summarize-content:refused', 'step:security-audit:skipped', 'reroute:incident-triage:queued']);
    expect(wf.workflowChildren![0]!.detail).toContain('reserved');
    expect(await store.getRun('wf-3:step-1')).toBeNull();
  });
});
