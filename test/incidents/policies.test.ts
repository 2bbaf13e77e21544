import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { Fingerprints } from '../../src/incidents/fingerprint.js';
import { createIncidentLedger } from '../../src/incidents/ledger.js';
import { createIncidentService, type IncidentService } from '../../src/incidents/service.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/tasks/admission.js';
import { checkTaskRequest } from '../../src/tasks/payload-validation.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { tempDir } from '../support/config.js';
import { makeRun } from '../support/runs.js';
import { manualClock } from '../support/clocks.js';
import { operator } from '../support/identities.js';
import { gapSignal } from '../support/incident-signals.js';

describe('incident policies', () => {
  let store: StateStore;
  let clock: ReturnType<typeof manualClock>;
  let service: IncidentService;

  beforeEach(async () => {
    store = new SqliteStateStore(join(tempDir('policies-'), 'state.sqlite'));
    await store.open();
    clock = manualClock();
    const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
    const invalidator = { invalidate: async () => undefined };
    const admit = createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100 });
    service = createIncidentService({
      ledger: createIncidentLedger({ store, coordination, clock, invalidator }),
      admit,
      checkTaskRequest,
      store,
      coordination,
      clock,
      logger: pino({ level: 'silent' }),
      webhookSecret: 'unused',
      serviceGaps: () => [],
    });
  });
  afterEach(async () => {
    await store.close();
  });

  /** Finishes a run as the runner would and tells the incident service. */
  async function settle(runId: string, status: 'success' | 'failed' | 'cancelled'): Promise<RunRecord> {
    const written = await store.mutateRun(runId, (run) => ({
      ...run!,
      status,
      queueState: null,
      finishedAt: clock.now().toISOString(),
      ...(status === 'failed' ? { error: 'worker crashed', failureReason: 'worker-crash' } : {}),
    }));
    await service.handleRunSettled(written.after!);
    return written.after!;
  }

  async function runsOfType(type: string) {
    return (await store.listRuns({ type, includeInternal: true, limit: 100 })).items;
  }

  it('assigns an owner and queues the primary remediation lane once, however often the policies fire', async () => {
    const opened = await service.reportSignal(gapSignal());
    const { incidentId } = opened;
    expect(opened.owner).toBe('system-monitor-agent');
    expect(opened.ownershipHistory).toEqual([
      { at: '2026-03-01T10:00:00.000Z', owner: 'system-monitor-agent', previousOwner: null, actor: 'incident-policy', source: 'policy', note: null },
    ]);
    const key = `incident:${incidentId}:e1:remediation:1`;
    expect(opened.remediationTasks).toMatchObject([{ runId: key, taskType: 'system-monitor', role: 'primary', attempt: 1, status: 'queued' }]);
    expect(opened.remediation).toMatchObject({ status: 'in-progress', owner: 'system-monitor-agent' });

    await Promise.all(Array.from({ length: 5 }, () => service.runPolicies(incidentId)));
    await service.reportSignal(gapSignal());
    const after = (await service.ledger.get(incidentId))!;
    expect(after.policyExecutions.map((e) => [e.action, e.outcome])).toEqual([
      ['assign-owner', 'applied'],
      ['queue-remediation', 'admitted'],
    ]);
    expect(after.remediationTasks).toHaveLength(1);
    const runs = await runsOfType('system-monitor');
    expect(runs.map((r) => r.runId)).toEqual([key]);
    expect(runs[0]!.payload).toMatchObject({ type: 'health', __incidentId: incidentId });
    expect(runs[0]!.requestedBy).toBe('incident-policy');
  });

  it('retries a blocked remediation up to maxAutoRemediationAttempts, then reports it blocked', async () => {
    const { incidentId } = await service.reportSignal(gapSignal());
    await settle(`incident:${incidentId}:e1:remediation:1`, 'failed');
    let record = (await service.ledger.get(incidentId))!;
    expect(record.remediationTasks.map((t) => [t.attempt, t.status])).toEqual([
      [1, 'failed'],
      [2, 'queued'],
    ]);
    expect(record.policyExecutions.at(-1)).toMatchObject({ action: 'retry-remediation', runId: `incident:${incidentId}:e1:remediation:2`, outcome: 'admitted' });

    await settle(`incident:${incidentId}:e1:remediation:2`, 'failed');
    record = (await service.ledger.get(incidentId))!;
    expect(record.remediationTasks).toHaveLength(2);
    expect(record.remediation.status).toBe('blocked');
    expect(record.remediation.blockers).toContain(`system-monitor run incident:${incidentId}:e1:remediation:2 failed`);
    expect(record.remediation.nextAction).toContain('POST /api/incidents/:id/remediate');
    expect(await runsOfType('system-monitor')).toHaveLength(2);
  });

  it('reports a cancelled remediation blocked, with no automatic retry: the operator decided', async () => {
    const { incidentId } = await service.reportSignal(gapSignal());
    await settle(`incident:${incidentId}:e1:remediation:1`, 'cancelled');
    const record = (await service.ledger.get(incidentId))!;
    expect(record.remediationTasks.map((t) => [t.attempt, t.status])).toEqual([[1, 'cancelled']]);
    expect(record.remediation.status).toBe('blocked');
    expect(record.remediation.nextAction).toContain('POST /api/incidents/:id/remediate');
    expect(await runsOfType('system-monitor')).toHaveLength(1);
  });

  it('queues the verifier once a remediation succeeds; a verified run incident resolves', async () => {
    const failed = makeRun({ runId: 'nightly-1', type: 'summarize-content', status: 'failed', queueState: null, attempt: 3, error: 'timeout', failureReason: 'timeout' });
    await store.mutateRun(failed.runId, () => failed);
    await service.handleRunSettled(failed);
    const incidentId = (await service.ledger.list({})).incidents[0]!.incidentId;
    let record = (await service.ledger.get(incidentId))!;
    expect(record).toMatchObject({ fingerprint: Fingerprints.run('nightly-1'), classification: 'retry-recovery', status: 'active', linkedRunIds: ['nightly-1', `incident:${incidentId}:e1:remediation:1`] });

    await settle(`incident:${incidentId}:e1:remediation:1`, 'success');
    record = (await service.ledger.get(incidentId))!;
    const remediationTaskId = record.remediationTasks[0]!.taskId;
    const verifierRun = `incident:${incidentId}:e1:verify:${remediationTaskId}`;
    expect(record.remediationTasks[1]).toMatchObject({ role: 'verifier', runId: verifierRun, taskType: 'system-monitor', verifies: remediationTaskId });
    expect(record.verification).toMatchObject({ required: true, status: 'queued' });
    expect(record.policyExecutions.map((e) => e.action)).toEqual(['assign-owner', 'queue-remediation', 'queue-verifier']);

    await settle(verifierRun, 'success');
    record = (await service.ledger.get(incidentId))!;
    expect(record.verification.status).toBe('passed');
    expect(record.status).toBe('resolved');
    expect(record.resolution).toContain('remediation verified');
    expect(record.remediationPlan.map((s) => s.status)).toEqual(['done', 'done', 'done', 'done']);
  });

  it('escalates when targetSlaMinutes is breached, once per breach, through incident-triage', async () => {
    const { incidentId, policy, escalation } = await service.reportSignal(gapSignal());
    expect(policy.targetSlaMinutes).toBe(120);
    expect(escalation).toEqual({ level: 0, summary: null, dueAt: '2026-03-01T12:00:00.000Z', escalatedAt: null });

    clock.advance(119 * 60_000);
    await service.runPolicies(incidentId);
    expect((await service.ledger.get(incidentId))!.escalation.level).toBe(0);

    clock.advance(2 * 60_000);
    await Promise.all([service.runPolicies(incidentId), service.runPolicies(incidentId)]);
    let record = (await service.ledger.get(incidentId))!;
    expect(record.escalation).toMatchObject({ level: 1, escalatedAt: '2026-03-01T12:01:00.000Z', dueAt: '2026-03-01T14:01:00.000Z' });
    expect(record.history.filter((h) => h.kind === 'escalated')).toHaveLength(1);
    expect(record.policyExecutions.filter((e) => e.action === 'escalate')).toMatchObject([{ taskType: 'incident-triage', runId: `incident:${incidentId}:e1:escalation:1` }]);
    expect((await runsOfType('incident-triage')).map((r) => r.runId)).toEqual([`incident:${incidentId}:e1:escalation:1`]);

    clock.advance(120 * 60_000);
    await service.runPolicies(incidentId);
    record = (await service.ledger.get(incidentId))!;
    expect(record.escalation.level).toBe(2);
  });

  it('only assigns an owner to a watching incident (a run still retrying)', async () => {
    const retrying = makeRun({
      runId: 'flaky-1',
      type: 'summarize-content',
      status: 'retrying',
      queueState: null,
      retry: { attempt: 1, retryLimit: 3, backoffMs: 1000, nextRetryAt: '2026-03-01T10:00:01.000Z', lastError: 'crash' },
    });
    await store.mutateRun(retrying.runId, () => retrying);
    await service.handleRunSettled(retrying);
    const [incident] = (await service.ledger.list({})).incidents;
    expect(incident).toMatchObject({ status: 'watching', severity: 'info', classification: 'retry-recovery', owner: 'system-monitor-agent', remediationTasks: [] });
    const recovered = await settle('flaky-1', 'success').then(() => service.ledger.get(incident!.incidentId));
    expect(recovered!.status).toBe('watching');
    await store.mutateRun('flaky-1', (run) => ({ ...run!, attempt: 2 }));
    await service.handleRunSettled((await store.getRun('flaky-1'))!);
    expect((await service.ledger.get(incident!.incidentId))!.status).toBe('resolved');
  });

  it('holds a manual build-refactor remediation for approval, bounded, and verifies its scope once the replay succeeds', async () => {
    const { incidentId } = await service.reportSignal(gapSignal({ fingerprint: 'alert:abc', source: 'alert', classification: 'alert' }));
    const answer = await service.remediate(
      incidentId,
      { taskType: 'build-refactor', payload: { scope: 'projects/app', intent: 'fix', constraints: { maxFilesChanged: 40, runTests: false } }, note: 'patch it' },
      operator('ops'),
    );
    expect(answer).toMatchObject({ status: 'awaiting-approval', approvalRequired: true, taskType: 'build-refactor' });
    const held = (await store.getRun(answer.runId))!;
    expect(held.queueState).toBe('held');
    expect(held.payload).toMatchObject({ requiresApproval: true, constraints: { maxFilesChanged: 10, runTests: true }, __incidentId: incidentId });
    expect(held.requestedBy).toBe('ops');
    let record = (await service.ledger.get(incidentId))!;
    expect(record.verification).toMatchObject({ required: true, status: 'pending' });
    expect(record.history.at(-1)).toMatchObject({ kind: 'remediation-queued', actor: 'ops' });

    const replay = makeRun({ runId: `approval-replay:${held.taskId}`, type: 'build-refactor', status: 'success', queueState: null, payload: held.payload, approvedFromTaskId: held.taskId });
    await store.mutateRun(replay.runId, () => replay);
    await service.handleRunSettled(replay);
    record = (await service.ledger.get(incidentId))!;
    const manual = record.remediationTasks.find((t) => t.role === 'manual')!;
    expect(manual).toMatchObject({ status: 'success', replayRunId: replay.runId });
    const verifier = record.remediationTasks.find((t) => t.role === 'verifier')!;
    expect(verifier.taskType).toBe('qa-verification');
    expect((await store.getRun(verifier.runId))!.payload).toMatchObject({ target: 'projects/app', mode: 'execute' });
  });

  it('refuses a remediation payload the trigger route would refuse', async () => {
    const { incidentId } = await service.reportSignal(gapSignal());
    await expect(service.remediate(incidentId, { taskType: 'qa-verification', payload: { __approved: true, target: 'x' } }, operator('ops'))).rejects.toMatchObject({ code: 'reserved_field' });
    await expect(service.remediate('00000000-0000-5000-8000-000000000000', { taskType: 'system-monitor' }, operator('ops'))).rejects.toMatchObject({ code: 'not_found' });
  });
});

/** An incident service over `store` with a manual clock and in-memory coordination, for sweep tests. */
function sweepingService(store: SqliteStateStore, sources: Pick<Parameters<typeof createIncidentService>[0], 'serviceGaps' | 'knowledgeHealth'>) {
  const clock = manualClock();
  const coordination = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
  const invalidator = { invalidate: async () => undefined };
  return createIncidentService({
    ledger: createIncidentLedger({ store, coordination, clock, invalidator }),
    admit: createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100 }),
    checkTaskRequest,
    store,
    coordination,
    clock,
    logger: pino({ level: 'silent' }),
    webhookSecret: 'unused',
    ...sources,
  });
}

describe('the incident sweep', () => {
  it('opens knowledge incidents for stale docs and contradictions for the operators, and resolves them when the index is clean', async () => {
    const store = new SqliteStateStore(join(tempDir('sweep-knowledge-'), 'state.sqlite'));
    await store.open();
    try {
      const health = { staleDocs: 2, contradictionCount: 1 };
      const service = sweepingService(store, { serviceGaps: () => [], knowledgeHealth: async () => ({ ...health }) });
      await service.sweep();
      const open = (await service.ledger.list({})).incidents;
      const contradiction = open.find((i) => i.fingerprint === 'knowledge:contradictions')!;
      // Regenerating the pack would not change what the docs say: the operators own these, no lane is queued.
      expect(contradiction).toMatchObject({ classification: 'knowledge', severity: 'warning', status: 'active', owner: 'operators', remediationTasks: [], policy: { remediationTaskType: null } });
      expect(open.find((i) => i.fingerprint === 'knowledge:staleness')).toMatchObject({ severity: 'info', summary: '2 doc(s) are older than the files they describe' });
      expect((await store.listRuns({ type: 'drift-repair' })).total).toBe(0);

      health.staleDocs = 0;
      health.contradictionCount = 0;
      await service.sweep();
      const resolved = (await service.ledger.list({ status: 'resolved' })).incidents.map((i) => i.fingerprint);
      expect(resolved).toEqual(expect.arrayContaining(['knowledge:contradictions', 'knowledge:staleness']));
    } finally {
      await store.close();
    }
  });

  it("asks the store for its status without row counts (every instance sweeps, and a shared database's counts walk whole tables)", async () => {
    const store = new SqliteStateStore(join(tempDir('sweep-health-'), 'state.sqlite'));
    await store.open();
    try {
      const asked: unknown[] = [];
      const port: StateStore = store;
      const health = port.health.bind(port);
      port.health = (options) => {
        asked.push(options);
        return health(options);
      };
      await sweepingService(store, { serviceGaps: () => [] }).sweep();
      expect(asked).toEqual([{ counts: false }]);
    } finally {
      await store.close();
    }
  });

  it('leaves a run that failed without retries to the operators and resolves it once a later run of its type succeeds', async () => {
    const store = new SqliteStateStore(join(tempDir('sweep-'), 'state.sqlite'));
    await store.open();
    try {
      const gaps = [{ agentId: 'community-helper', unit: 'orchestrator-community-helper.service', reason: 'unit-stopped' as const, detail: 'inactive/dead' }];
      const service = sweepingService(store, { serviceGaps: () => gaps });
      const failed = makeRun({ runId: 'rr-1', type: 'release-readiness', status: 'failed', queueState: null, finishedAt: '2026-03-01T10:00:00.000Z', failureReason: 'worker-logical-failure', error: 'scope is not a directory' });
      await store.mutateRun(failed.runId, () => failed);
      // The sweep finds the failed run (no settle hook ran) and the service gap.
      await service.sweep();
      const open = (await service.ledger.list({})).incidents;
      const runIncident = open.find((i) => i.fingerprint === 'run:rr-1')!;
      expect(runIncident).toMatchObject({ classification: 'run-failure', owner: 'operators', remediationTasks: [], policy: { remediationTaskType: null } });
      expect(runIncident.remediation.nextAction).toBe('operator: act on the signal');
      expect(open.find((i) => i.fingerprint === 'service-gap:community-helper')).toMatchObject({ classification: 'service-runtime', owner: 'system-monitor-agent' });

      const later = makeRun({ runId: 'rr-2', type: 'release-readiness', status: 'success', queueState: null, createdAt: '2026-03-01T10:05:00.000Z' });
      await store.mutateRun(later.runId, () => later);
      gaps.length = 0;
      await service.sweep();
      const resolved = (await service.ledger.list({ status: 'resolved' })).incidents;
      expect(resolved.map((i) => [i.fingerprint, i.resolution])).toEqual(
        expect.arrayContaining([
          ['run:rr-1', 'a later release-readiness run (rr-2) succeeded'],
          ['service-gap:community-helper', 'signal cleared'],
        ]),
      );
    } finally {
      await store.close();
    }
  });
});

describe('a failing coordination store', () => {
  it('is still recorded as an incident, without the lock it cannot take', async () => {
    const store = new SqliteStateStore(join(tempDir('coord-down-'), 'state.sqlite'));
    await store.open();
    try {
      const memory = new MemoryCoordination({ cacheMaxEntries: 10, cacheMaxBytes: 100_000 });
      const down = Object.assign(Object.create(memory) as MemoryCoordination, {
        status: async () => ({ store: 'kvstore' as const, status: 'degraded' as const, redisConfigured: true, redisReachable: false, detail: 'redis unreachable: ECONNREFUSED' }),
        acquireLock: async () => {
          throw new Error('ECONNREFUSED');
        },
      });
      const clock = manualClock();
      const invalidator = { invalidate: async () => undefined };
      const service = createIncidentService({
        ledger: createIncidentLedger({ store, coordination: down, clock, invalidator }),
        admit: createAdmission({ store, clock, invalidator, onReady: () => undefined, telemetryRetention: 100 }),
        checkTaskRequest,
        store,
        coordination: down,
        clock,
        logger: pino({ level: 'silent' }),
        webhookSecret: 'unused',
        serviceGaps: () => [],
      });
      await service.sweep();
      const [incident] = (await service.ledger.list({})).incidents;
      expect(incident).toMatchObject({ fingerprint: 'persistence:coordination', classification: 'persistence', severity: 'warning', summary: 'redis unreachable: ECONNREFUSED' });
      // Any other incident still needs the lock: no unlocked writes beyond the fault itself.
      await expect(service.ledger.acknowledge(incident!.incidentId, operator('ops'), null)).rejects.toThrow('ECONNREFUSED');
    } finally {
      await store.close();
    }
  });
});
