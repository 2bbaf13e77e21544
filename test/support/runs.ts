import { randomUUID } from 'node:crypto';
import type { RunRecord } from '../../src/domain/run-record.js';
import { newRunRecord, type NewRunInput } from '../../src/runtime/run-transitions.js';

/**
 * A complete, valid run record (pending, ready) with any field overridden: admitted by the
 * service's own newRunRecord from the API by `test`, as a doc-sync at a fixed time, but with no
 * events yet (the tests count the events they append).
 */
export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const taskId = overrides.taskId ?? randomUUID();
  const run = newRunRecord({
    runId: taskId,
    taskId,
    type: 'doc-sync',
    internal: false,
    payload: {},
    source: 'api',
    requestedBy: 'test',
    now: new Date('2026-01-01T00:00:00.000Z'),
    approvalRequired: false,
    approvalReason: null,
    approvedFromTaskId: null,
  });
  return { ...run, events: [], ...overrides };
}

/** The claim mutator the runner would apply: the run leaves the queue and starts. */
export function markRunning(run: RunRecord, ownerId = 'owner-1'): RunRecord {
  return {
    ...run,
    status: 'running',
    queueState: null,
    claim: { ownerId, leaseUntil: '2026-01-01T00:05:00.000Z' },
  };
}

/** Inserts a run if absent, the way admission does. */
export function insertIfAbsent(run: RunRecord): (current: RunRecord | null) => RunRecord | null {
  return (current) => (current === null ? run : null);
}

/**
 * A run as admission creates it, built by the service's own newRunRecord: `runId` and `type`
 * given, the rest defaulting to a public API request by `ops`, not held, made now.
 */
export function admittedRun(input: Pick<NewRunInput, 'runId' | 'type'> & Partial<NewRunInput>): RunRecord {
  return newRunRecord({
    taskId: `task-${input.runId}`,
    internal: false,
    payload: {},
    source: 'api',
    requestedBy: 'ops',
    now: new Date(),
    approvalRequired: false,
    approvalReason: null,
    approvedFromTaskId: null,
    ...input,
  });
}
