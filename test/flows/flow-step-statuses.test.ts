import { describe, expect, it } from 'vitest';
import { exitCodeFor } from '../../src/cli/watch-run.js';
import { finishedBy } from '../../src/metrics/run-write-meaning.js';
import { cancelDecisionFor } from '../../src/runtime/run-cancellation.js';
import { toRunView } from '../../src/runtime/run-view.js';
import { TERMINAL_RUN_STATUSES as STREAM_END_STATUSES } from '../../src/events/run-event-stream.js';
import { withFlowStepStatus } from '../../src/store/run-rules.js';
import { makeRun } from '../support/runs.js';

const waiting = makeRun({ runId: 'flow:f:b', source: 'flow', status: 'waiting', queueState: 'waiting', flowStep: { flowId: 'f', key: 'b' } });
const skipped = makeRun({
  runId: 'flow:f:c',
  source: 'flow',
  status: 'skipped',
  queueState: null,
  finishedAt: '2026-01-01T00:00:01.000Z',
  error: "skipped: dependency 'b' failed",
  flowStep: { flowId: 'f', key: 'c', skipped: { policy: 'skip', reason: "dependency 'b' failed" } },
});

describe('the flow step run statuses waiting and skipped, wherever a run status is read', () => {
  it('run views show the stage and why a step was skipped', () => {
    expect(toRunView(waiting).workflow).toMatchObject({ stage: 'waiting', graphStatus: 'in-progress', stopClassification: null });
    expect(toRunView(skipped).workflow).toMatchObject({ stage: 'skipped', graphStatus: 'skipped', stopReason: "dependency 'b' failed", stopClassification: 'skipped' });
  });

  it('a waiting step is cancelled at once; a skipped one has ended (409)', () => {
    expect(cancelDecisionFor(waiting)).toEqual({ kind: 'end-now' });
    expect(cancelDecisionFor(skipped)).toMatchObject({ kind: 'conflict' });
  });

  it('metrics count a skip under its own bounded label, once, and its event stream ends with it', () => {
    expect(finishedBy(waiting, skipped)).toBe('skipped');
    expect(finishedBy(skipped, { ...skipped })).toBeNull();
    expect(finishedBy(null, waiting)).toBeNull();
    expect(STREAM_END_STATUSES.has('skipped')).toBe(true);
    expect(STREAM_END_STATUSES.has('waiting')).toBe(false);
  });

  it('orch watch of a skipped step exits 1, as a failure; cancelled 130, success 0', () => {
    expect(exitCodeFor('skipped')).toBe(1);
    expect(exitCodeFor('cancelled')).toBe(130);
    expect(exitCodeFor('success')).toBe(0);
  });

  it('records stored in the old words are read in the new ones; runs of no flow keep theirs', () => {
    expect(withFlowStepStatus({ ...waiting, status: 'pending' }).status).toBe('waiting');
    expect(withFlowStepStatus({ ...skipped, status: 'cancelled' }).status).toBe('skipped');
    const plainCancelled = makeRun({ status: 'cancelled', queueState: null });
    const plainPending = makeRun({ status: 'pending', queueState: 'ready' });
    expect(withFlowStepStatus(plainCancelled)).toBe(plainCancelled);
    expect(withFlowStepStatus(plainPending)).toBe(plainPending);
  });
});
