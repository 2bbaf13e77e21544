import { randomUUID } from 'node:crypto';
import type { RunRecord } from '../../src/domain/run-record.js';
import { newRunRecord, type NewRunInput } from '../../src/runtime/run-transitions.js';

/** A complete, valid run record (pending, ready) with any field overridden. */
export function makeRun(overrides: Partial<RunRecord> = {}): RunRecord {
  const taskId = overrides.taskId ?? randomUUID();
  const at = '2026-01-01T00:00:00.000Z';
  return {
    runId: taskId,
    taskId,
    type: 'doc-sync',
    internal: false,
    status: 'pending',
    queueState: 'ready',
    seq: 0,
    payload: {},
    source: 'api',
    requestedBy: 'test',
    createdAt: at,
    updatedAt: at,
    startedAt: null,
    finishedAt: null,
    attempt: 1,
    claim: null,
    queueAttempts: [{ attemptId: `${taskId}#1`, attempt: 1, state: 'admitted', at }],
    events: [],
    approval: {
      required: false,
      status: 'not-required',
      reason: null,
      requestedAt: null,
      decidedAt: null,
      decidedBy: null,
      note: null,
      replayRunId: null,
      replayTaskId: null,
    },
    approvedFromTaskId: null,
    retry: null,
    result: null,
    error: null,
    failureReason: null,
    accounting: null,
    operatorSummary: null,
    recommendedNextActions: null,
    specialistContract: null,
    ...overrides,
  };
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
