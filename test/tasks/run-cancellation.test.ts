import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../src/domain/run-record.js';
import { applyCancelRequest, cancelDecisionFor, markCancelled, replyStatusOf } from '../../src/runtime/run-cancellation.js';
import { admittedRun, makeRun, markRunning } from '../support/runs.js';

const NOW = new Date('2026-02-01T10:00:00.000Z');
const LATER = new Date('2026-02-01T10:00:05.000Z');
const REQUEST = { actor: 'ops', reason: 'not needed' };

const names = (run: RunRecord) => run.events.map((e) => e.name);

describe('cancel transitions', () => {
  it('ends a pending run at once: cancelled, out of the queue, signal null, attempt closed', () => {
    const run = admittedRun({ runId: 'r1', type: 'doc-sync' });
    const next = applyCancelRequest(run, NOW, REQUEST)!;
    expect(next).toMatchObject({ status: 'cancelled', queueState: null, claim: null, retry: null, finishedAt: NOW.toISOString() });
    expect(next.cancellation).toEqual({ requestedAt: NOW.toISOString(), requestedBy: 'ops', reason: 'not needed', completedAt: NOW.toISOString(), signal: null });
    expect(names(next).slice(-2)).toEqual(['cancel-requested', 'cancelled']);
    expect(next.queueAttempts.at(-1)).toMatchObject({ state: 'failed', attempt: 1 });
    expect(next.queueAttempts.at(-1)!.detail).toContain('cancelled by ops');
    expect(replyStatusOf(cancelDecisionFor(run))).toBe('cancelled');
  });

  it('closes a held run\'s approval as cancelled with the decision in its history', () => {
    const run = admittedRun({ runId: 'r2', type: 'agent-deploy', approvalRequired: true, approvalReason: 'gated' });
    expect(run.queueState).toBe('held');
    const next = applyCancelRequest(run, NOW, REQUEST)!;
    expect(next.status).toBe('cancelled');
    expect(next.queueState).toBeNull();
    expect(next.approval).toMatchObject({ status: 'cancelled', decidedBy: 'ops', decidedAt: NOW.toISOString(), note: 'not needed' });
    expect(next.approval.decisionHistory).toEqual([{ at: NOW.toISOString(), actor: 'ops', decision: 'cancelled', note: 'not needed' }]);
    expect(names(next)).toContain('approval-cancelled');
  });

  it('ends a retrying run and drops its retry record, so nothing admits it again', () => {
    const run = makeRun({
      status: 'retrying',
      queueState: null,
      retry: { attempt: 1, retryLimit: 3, backoffMs: 1000, nextRetryAt: NOW.toISOString(), lastError: 'boom' },
    });
    const next = applyCancelRequest(run, NOW, { actor: 'ops', reason: null })!;
    expect(next).toMatchObject({ status: 'cancelled', retry: null });
    expect(next.cancellation?.reason).toBeNull();
  });

  it('records the request on a running run, which stays running until its owner stops it', () => {
    const run = markRunning(makeRun({ runId: 'r4', taskId: 'r4' }), 'owner-a');
    const next = applyCancelRequest(run, NOW, REQUEST)!;
    expect(next).toMatchObject({ status: 'running', claim: run.claim });
    expect(next.cancellation).toEqual({ requestedAt: NOW.toISOString(), requestedBy: 'ops', reason: 'not needed', completedAt: null, signal: null });
    expect(names(next)).toEqual(['cancel-requested']);
    expect(replyStatusOf(cancelDecisionFor(run))).toBe('cancelling');
    // Asked again: nothing changes, the reply is the same.
    expect(applyCancelRequest(next, LATER, { actor: 'someone-else', reason: 'again' })).toBeNull();
    expect(cancelDecisionFor(next)).toEqual({ kind: 'already-cancelling' });
    expect(replyStatusOf(cancelDecisionFor(next))).toBe('cancelling');

    const done = markCancelled(next, LATER, 'SIGTERM');
    expect(done).toMatchObject({ status: 'cancelled', claim: null, retry: null, finishedAt: LATER.toISOString() });
    expect(done.cancellation).toEqual({ ...next.cancellation, completedAt: LATER.toISOString(), signal: 'SIGTERM' });
    expect(done.events.at(-1)).toMatchObject({ name: 'cancelled', data: { signal: 'SIGTERM' } });
    expect(applyCancelRequest(done, LATER, REQUEST)).toBeNull();
    expect(replyStatusOf(cancelDecisionFor(done))).toBe('cancelled');
  });

  it('refuses finished runs and an approved hold whose work runs as its replay', () => {
    for (const status of ['success', 'failed'] as const) {
      const run = makeRun({ status, queueState: null });
      expect(cancelDecisionFor(run).kind).toBe('conflict');
      expect(replyStatusOf(cancelDecisionFor(run))).toBeNull();
      expect(applyCancelRequest(run, NOW, REQUEST)).toBeNull();
    }
    const approved = makeRun({
      queueState: null,
      approval: { ...makeRun().approval, required: true, status: 'approved', replayRunId: 'approval-replay:t1' },
    });
    const decision = cancelDecisionFor(approved);
    expect(decision.kind).toBe('conflict');
    expect(decision.kind === 'conflict' && decision.message).toContain('approval-replay:t1');
  });
});
