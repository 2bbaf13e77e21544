import { describe, expect, it } from 'vitest';
import type { RunListAnswer, RunView } from '../../console/src/api/types.js';
import { acceptsQueueState, heldOnly, runListQuery } from '../../console/src/runs/held-filter.js';
import { HELD_FILTER, isAwaitingApproval } from '../../console/src/runs/held.js';
import { runStagesModel } from '../../console/src/runs/run-stages.js';

type Attempt = RunView['queueAttempts'][number];
const at = (s: number) => new Date(Date.UTC(2026, 2, 1, 12, 0, s)).toISOString();
const attempt = (n: number, state: Attempt['state'], s: number): Attempt => ({ attemptId: `r#${n}`, attempt: n, state, at: at(s) });

/** A run view with the fields these helpers read; the rest of the record does not matter to them. */
function run(patch: Partial<RunView> & { queueState?: string } = {}): RunView {
  const base = {
    runId: 'r',
    status: 'success',
    approval: { required: false, status: 'not-required', decidedBy: null, reason: null, note: null, replayRunId: null, requestedAt: null },
    workflow: { awaitingApproval: false },
    queueAttempts: [attempt(1, 'admitted', 0), attempt(1, 'running', 1), attempt(1, 'success', 3)],
    approvedFromTaskId: null,
    retry: null,
    finishedAt: at(3),
    updatedAt: at(3),
  };
  return { ...base, ...patch } as unknown as RunView;
}
const pendingApproval = { required: true, status: 'pending', decidedBy: null, reason: 'payload.requiresApproval is true', note: null, replayRunId: null, requestedAt: at(0) };

describe('held runs', () => {
  it('are pending runs whose queue state is held, or, from a service without queueState, whose stage waits for approval', () => {
    expect(isAwaitingApproval(run({ status: 'pending', queueState: 'held' }))).toBe(true);
    expect(isAwaitingApproval(run({ status: 'pending', workflow: { awaitingApproval: true } as RunView['workflow'] }))).toBe(true);
    expect(isAwaitingApproval(run({ status: 'pending', approval: pendingApproval as RunView['approval'] }))).toBe(true);
    expect(isAwaitingApproval(run({ status: 'pending', queueState: 'ready' }))).toBe(false);
    // Decided or ended: no longer held, whatever else the record says.
    expect(isAwaitingApproval(run({ status: 'cancelled', queueState: 'held' }))).toBe(false);
    expect(isAwaitingApproval(run({ status: 'pending', approval: { ...pendingApproval, status: 'approved' } as RunView['approval'] }))).toBe(false);
  });

  it('are listed with queueState=held where the service takes it, and filtered in the page where it does not', () => {
    expect(runListQuery(HELD_FILTER, true)).toEqual({ status: 'pending', queueState: 'held' });
    expect(runListQuery(HELD_FILTER, false)).toEqual({ status: 'pending' });
    expect(runListQuery('failed', true)).toEqual({ status: 'failed' });
    expect(runListQuery('', true)).toEqual({});
    expect(acceptsQueueState({ paths: { '/api/tasks/runs': { get: { parameters: [{ name: 'status' }, { name: 'queueState' }] } } } })).toBe(true);
    expect(acceptsQueueState({ paths: { '/api/tasks/runs': { get: { parameters: [{ name: 'status' }] } } } })).toBe(false);
    expect(acceptsQueueState(null)).toBe(false);

    const held = run({ runId: 'h', status: 'pending', queueState: 'held' });
    const queued = run({ runId: 'q', status: 'pending', queueState: 'ready' });
    const page = (items: RunView[], total: number) => ({ items, total, nextCursor: null }) as unknown as RunListAnswer;
    // A service that filtered: its total stands. One that did not: this page's held runs, said so.
    expect(heldOnly(page([held], 7))).toMatchObject({ total: 7, filteredHere: false });
    expect(heldOnly(page([queued, held], 2))).toMatchObject({ items: [held], total: 1, filteredHere: true });
  });
});

describe('the run graph', () => {
  it('is not drawn for a plain run: admitted, executed once, ended', () => {
    expect(runStagesModel(run())).toBeNull();
    expect(runStagesModel(run({ status: 'pending', queueAttempts: [attempt(1, 'admitted', 0)], finishedAt: null }))).toBeNull();
  });

  it('shows the approval a held run waits for', () => {
    const model = runStagesModel(run({ status: 'pending', queueState: 'held', approval: pendingApproval as RunView['approval'], queueAttempts: [attempt(1, 'admitted', 0), attempt(1, 'awaiting-approval', 0)], finishedAt: null }));
    expect(model?.nodes.map((n) => [n.id, n.status])).toEqual([
      ['admitted', 'done'],
      ['approval', 'awaiting-approval'],
    ]);
  });

  it('shows the decision and the replay that carried the approved work, linked', () => {
    const approval = { ...pendingApproval, status: 'approved', decidedBy: 'ops', replayRunId: 'approval-replay:t1' };
    const model = runStagesModel(run({ approval: approval as RunView['approval'], queueAttempts: [attempt(1, 'admitted', 0), attempt(1, 'awaiting-approval', 0), attempt(1, 'success', 9)] }));
    expect(model?.nodes.map((n) => n.id)).toEqual(['admitted', 'approval', 'replay']);
    expect(model?.nodes[1]).toMatchObject({ status: 'approved', sublabel: 'approved by ops' });
    expect(model?.nodes[2]).toMatchObject({ runId: 'approval-replay:t1' });
    expect(model?.edges[1]).toEqual({ from: 'approval', to: 'replay', label: 'approved' });
  });

  it('shows each attempt of a retried run, and where a replay came from', () => {
    const retried = runStagesModel(
      run({ status: 'success', queueAttempts: [attempt(1, 'admitted', 0), attempt(1, 'running', 1), attempt(1, 'failed', 2), attempt(2, 'admitted', 5), attempt(2, 'running', 6), attempt(2, 'success', 8)], finishedAt: at(8) }),
    );
    expect(retried?.nodes.map((n) => [n.label, n.status, n.sublabel])).toEqual([
      ['admitted', 'done', null],
      ['attempt 1', 'failed', 'ran 1.0 s'],
      ['attempt 2', 'success', 'ran 2.0 s'],
      ['result', 'success', null],
    ]);
    expect(retried?.edges.map((e) => e.label)).toEqual([null, 'retried', null]);

    const replay = runStagesModel(run({ approvedFromTaskId: '48d74424-4479-45ef-862a-983a957e3a45' }));
    expect(replay?.nodes.map((n) => n.id)).toEqual(['held', 'admitted', 'attempt-1', 'result']);
    expect(replay?.nodes[0]?.sublabel).toBe('task 48d74424');
  });
});
