import { describe, expect, it } from 'vitest';
import type { DependencyFailurePolicy } from '../../src/flows/flow-definition.js';
import { refusal } from '../support/domain-errors.js';
import { fileFlowHarnesses, type flowHarness, summarizeStep } from '../support/flow-harness.js';

type Harness = ReturnType<typeof flowHarness>;
const step = summarizeStep;

/** How the dependency `a` ends without success: its run fails, an operator cancels it, or its approval is rejected. */
const ENDINGS: Record<string, { gated: boolean; end: (h: Harness, runId: string) => Promise<unknown>; state: string }> = {
  failing: { gated: false, end: (h, runId) => h.finish(runId, false), state: 'failed' },
  cancelled: { gated: false, end: (h, runId) => h.cancelRun(runId), state: 'cancelled' },
  rejected: { gated: true, end: (h, runId) => h.decide(runId, 'rejected'), state: 'failed' },
};

describe('flow failure policies, each with a failing, a cancelled and a rejected dependency', () => {
  const setup = fileFlowHarnesses('orch-flow-policy-');

  /** `a` -> `b` (the policy under test); `x` -> `y` a branch of its own, still waiting when `a` ends. */
  async function flowWith(h: Harness, id: string, policy: DependencyFailurePolicy, gated: boolean) {
    await h.flows.create({
      id,
      requestedBy: 'ops',
      steps: [
        step('a', [], gated ? { payload: { content: 'gated', requiresApproval: true } } : {}),
        step('b', ['a'], { onDependencyFailure: policy }),
        step('x'),
        step('y', ['x']),
      ],
    });
    expect(await h.states(id)).toEqual({ a: gated ? 'awaiting-approval' : 'queued', b: 'waiting', x: 'queued', y: 'waiting' });
  }

  for (const [ending, { gated, end, state }] of Object.entries(ENDINGS)) {
    it(`fail: a ${ending} dependency skips the step and fails the flow; waiting steps elsewhere are skipped too`, async () => {
      const h = await setup();
      await flowWith(h, 'f', 'fail', gated);
      await end(h, 'flow:f:a');
      expect(await h.states('f')).toEqual({ a: state, b: 'skipped', x: 'queued', y: 'skipped' });
      const b = (await h.store.getRun('flow:f:b'))!;
      expect(b).toMatchObject({ status: 'skipped', queueState: null, finishedAt: expect.any(String), flowStep: { skipped: { policy: 'fail' } } });
      expect(b.error).toContain(`'a' ${state}`);
      expect((await h.flows.get('f')).status).toBe('running');
      await h.finish('flow:f:x', true);
      expect((await h.flows.get('f')).status).toBe('failed');
    });

    it(`skip: a ${ending} dependency skips the step and the rest of the flow goes on`, async () => {
      const h = await setup();
      await flowWith(h, 's', 'skip', gated);
      await end(h, 'flow:s:a');
      expect(await h.states('s')).toEqual({ a: state, b: 'skipped', x: 'queued', y: 'waiting' });
      await h.finish('flow:s:x', true);
      expect((await h.states('s')).y).toBe('queued');
      await h.finish('flow:s:y', true);
      // `a` itself did not succeed: the flow fails, but only once every step ended.
      expect((await h.flows.get('s')).status).toBe('failed');
    });

    it(`run: a ${ending} dependency does not stop the step`, async () => {
      const h = await setup();
      await flowWith(h, 'r', 'run', gated);
      await end(h, 'flow:r:a');
      expect(await h.states('r')).toEqual({ a: state, b: 'queued', x: 'queued', y: 'waiting' });
      await h.finish('flow:r:b', true);
      await h.finish('flow:r:x', true);
      await h.finish('flow:r:y', true);
      expect(await h.states('r')).toEqual({ a: state, b: 'success', x: 'success', y: 'success' });
      expect((await h.flows.get('r')).status).toBe('failed');
    });
  }

  it('ends success when every step succeeded', async () => {
    const h = await setup();
    await h.flows.create({ id: 'ok', requestedBy: 'ops', steps: [step('a'), step('b', ['a'])] });
    await h.finish('flow:ok:a', true);
    await h.finish('flow:ok:b', true);
    expect((await h.flows.get('ok')).status).toBe('success');
  });

  it('an approved step: the held run closes at once, but dependents wait for the replay and follow its outcome', async () => {
    const h = await setup();
    await h.flows.create({ id: 'g', requestedBy: 'ops', steps: [step('gate', [], { payload: { content: 'x', requiresApproval: true } }), step('after', ['gate'])] });
    const decided = await h.decide('flow:g:gate', 'approved');
    const replayRunId = (decided as { replayRunId: string }).replayRunId;
    expect((await h.store.getRun('flow:g:gate'))!.status).toBe('success');
    const replay = (await h.store.getRun(replayRunId))!;
    expect(replay.flowStep).toEqual({ flowId: 'g', key: 'gate' });
    expect(await h.states('g')).toEqual({ gate: 'queued', after: 'waiting' });
    await h.start(replayRunId);
    expect(await h.states('g')).toEqual({ gate: 'running', after: 'waiting' });
    await h.finish(replayRunId, false);
    expect(await h.states('g')).toEqual({ gate: 'failed', after: 'skipped' });
    const view = await h.flows.get('g');
    expect(view).toMatchObject({ status: 'failed' });
    expect(view.steps[0]!.replayRunId).toBe(replayRunId);
  });

  it('a gated dependent is held for its approval only when promoted, its expiry counting from then', async () => {
    const h = await setup();
    await h.flows.create({ id: 'late', requestedBy: 'ops', steps: [step('a'), step('b', ['a'], { payload: { content: 'x', requiresApproval: true } })] });
    const waiting = (await h.store.getRun('flow:late:b'))!;
    expect(waiting.events.map((e) => e.name)).not.toContain('approval-requested');
    await h.finish('flow:late:a', true);
    const held = (await h.store.getRun('flow:late:b'))!;
    expect(held).toMatchObject({ queueState: 'held', approval: { status: 'pending' } });
    expect(held.events.filter((e) => e.name === 'approval-requested')).toHaveLength(1);
    expect((await h.states('late')).b).toBe('awaiting-approval');
  });

  it('a flow cancel asks running steps to stop and ends the waiting ones at once', async () => {
    const h = await setup();
    await h.flows.create({ id: 'c', requestedBy: 'ops', steps: [step('a'), step('b', ['a'])] });
    await h.start('flow:c:a');
    const view = await h.flows.cancel('c', 'enough', { actor: 'ops', role: 'operator', apiKeyLabel: 'ops', apiKeyExpiresAt: null });
    expect(view).toMatchObject({ status: 'running', cancelRequested: true });
    expect(await h.states('c')).toEqual({ a: 'running', b: 'cancelled' });
    expect((await h.store.getRun('flow:c:a'))!.cancellation).toMatchObject({ requestedBy: 'ops', reason: 'enough' });
  });
});

describe('rerun of a flow', () => {
  const setup = fileFlowHarnesses('orch-flow-rerun-');
  const ops = { actor: 'ops-2', role: 'operator' as const, apiKeyLabel: 'ops-2', apiKeyExpiresAt: null };

  /** `a` -> `b` -> `c`, `b` reading `a`'s summary; `b` fails the first time. */
  async function failedFlow(h: Harness) {
    await h.flows.create({ id: 'old', requestedBy: 'ops', steps: [step('a'), step('b', ['a'], { payload: { content: { $from: 'a', pointer: '/result/summary' } } }), step('c', ['b'])] });
    await h.finish('flow:old:a', true, { summary: 'from the first run' });
    await h.finish('flow:old:b', false);
    expect((await h.flows.get('old')).status).toBe('failed');
  }

  it('reuses the steps that succeeded and runs the rest in a new flow linked to the old one', async () => {
    const h = await setup();
    await failedFlow(h);
    const again = await h.flows.rerun('old', undefined, ops);
    expect(again.rerunOf).toBe('old');
    expect(again.runIds).toEqual(['flow:old:a', `flow:${again.flowId}:b`, `flow:${again.flowId}:c`]);
    expect(await h.states(again.flowId)).toEqual({ a: 'success', b: 'queued', c: 'waiting' });
    // The reused step's result is what the rerun's references read.
    expect((await h.store.getRun(`flow:${again.flowId}:b`))!.payload.content).toBe('from the first run');
    expect(await h.store.getRun(`flow:${again.flowId}:a`)).toBeNull();
    await h.finish(`flow:${again.flowId}:b`, true);
    await h.finish(`flow:${again.flowId}:c`, true);
    expect(await h.flows.get(again.flowId)).toMatchObject({ status: 'success', rerunOf: 'old', requestedBy: 'ops-2' });
  });

  it('runs again from `from` on, and refuses a `from` that is no step', async () => {
    const h = await setup();
    await failedFlow(h);
    const again = await h.flows.rerun('old', 'a', ops);
    expect(await h.states(again.flowId)).toEqual({ a: 'queued', b: 'waiting', c: 'waiting' });
    expect(await refusal(h.flows.rerun('old', 'zzz', ops))).toMatchObject({ code: 'invalid_request', details: [{ path: '/body/from' }] });
  });
});
