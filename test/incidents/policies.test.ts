import { join } from 'node:path';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MemoryCoordination } from '../../src/coordination/memory.js';
import { Fingerprints } from '../../src/incidents/fingerprint.js';
import { createIncidentLedger } from '../../src/incidents/ledger.js';
import { createIncidentService, type IncidentService } from '../../src/incidents/service.js';
import { SqliteStateStore } from '../../src/store/sqlite/sqlite-state-store.js';
import type { StateStore } from '../../src/store/types.js';
import { createAdmission } from '../../src/runtime/admission.js';
import { checkTaskRequest } from '../../src/runtime/payload-validation.js';
import { createTriggerCheck } from '../../src/runtime/trigger-check.js';
import type { Clock } from '../../src/clock.js';
import type { RunRecord } from '../../src/domain/run-record.js';
import { tempDir } from '../support/config.js';
import { makeRun } from '../support/runs.js';
import { manualClock } from '../support/clocks.js';
import { operator } from '../support/identities.js';
import { gapSignal } from '../support/incident-signals.js';
import { testLaneRegistry } from '../support/lanes.js';

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

  const settle = (runId: string, status: 'success' | 'failed' | 'cancelled', result?: Record<string, unknown>) => settleRun(store, service, clock, runId, status, result);

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

  it('keeps an rss-sweep incident open after a verifier that succeeded with posture critical and while rss-sweep fails; resolves it once rss-sweep succeeds', async () => {
    // The reproduction: rss-sweep without rssConfigPath failed three attempts and opened an incident.
    const failed = makeRun({ runId: 'rss-1', type: 'rss-sweep', status: 'failed', queueState: null, attempt: 3, createdAt: '2026-03-01T09:58:00.000Z', finishedAt: '2026-03-01T10:00:00.000Z', error: 'rssConfigPath is not configured', failureReason: 'handler-error' });
    await store.mutateRun(failed.runId, () => failed);
    await service.handleRunSettled(failed);
    const incidentId = (await service.ledger.list({})).incidents[0]!.incidentId;
    let record = (await service.ledger.get(incidentId))!;
    expect(record).toMatchObject({ fingerprint: Fingerprints.run('rss-1'), classification: 'retry-recovery', status: 'active', policy: { remediationTaskType: 'system-monitor', verifierTaskType: 'system-monitor' } });

    // system-monitor remediates and verifies; its own result says the system is critical.
    await settle(`incident:${incidentId}:e1:remediation:1`, 'success', { success: true, posture: 'critical' });
    record = (await service.ledger.get(incidentId))!;
    const remediationTaskId = record.remediationTasks[0]!.taskId;
    const verifierRun = `incident:${incidentId}:e1:verify:${remediationTaskId}`;
    expect(record.remediationTasks[1]).toMatchObject({ role: 'verifier', runId: verifierRun, taskType: 'system-monitor', verifies: remediationTaskId });
    expect(record.verification).toMatchObject({ required: true, status: 'queued' });
    expect(record.policyExecutions.map((e) => e.action)).toEqual(['assign-owner', 'queue-remediation', 'queue-verifier']);
    clock.advance(90_000);
    await settle(verifierRun, 'success', { success: true, posture: 'critical' });
    record = (await service.ledger.get(incidentId))!;
    expect(record).toMatchObject({ status: 'active', resolution: null });
    expect(record.verification.status).toBe('failed');
    expect(record.verification.summary).toBe(
      `system-monitor run ${verifierRun}: posture critical; checked rss-sweep runs since run rss-1 failed: no rss-sweep run has succeeded since; the latest is rss-1, failed (rssConfigPath is not configured)`,
    );
    expect(record.remediation).toMatchObject({ status: 'blocked', blockers: [`verification failed: ${record.verification.summary}`] });
    expect(record.history.at(-1)).toMatchObject({ kind: 'verification-updated', summary: `verification failed: ${record.verification.summary}` });

    // rss-sweep fails again; an operator's own system-monitor reads healthy: the cause is still there.
    const again = makeRun({ runId: 'rss-2', type: 'rss-sweep', status: 'failed', queueState: null, createdAt: '2026-03-01T10:02:00.000Z', finishedAt: '2026-03-01T10:02:01.000Z', error: 'rssConfigPath is not configured', failureReason: 'handler-exception' });
    await store.mutateRun(again.runId, () => again);
    await service.sweep();
    expect((await service.ledger.get(incidentId))!.status).toBe('active');
    const manual = await service.remediate(incidentId, { taskType: 'system-monitor' }, operator('ops'));
    await settle(manual.runId, 'success', { success: true, posture: 'healthy' });
    record = (await service.ledger.get(incidentId))!;
    const manualTask = record.remediationTasks.find((t) => t.runId === manual.runId)!;
    await settle(`incident:${incidentId}:e1:verify:${manualTask.taskId}`, 'success', { success: true, posture: 'healthy' });
    record = (await service.ledger.get(incidentId))!;
    expect(record.status).toBe('active');
    expect(record.verification).toMatchObject({ status: 'failed', summary: expect.stringContaining('posture healthy; checked rss-sweep runs since run rss-1 failed: no rss-sweep run has succeeded since; the latest is rss-2, failed') });

    // Configured: rss-sweep runs again and succeeds; the incident resolves on its own condition.
    const fixed = makeRun({ runId: 'rss-3', type: 'rss-sweep', status: 'success', queueState: null, createdAt: '2026-03-01T10:05:00.000Z', finishedAt: '2026-03-01T10:05:02.000Z' });
    await store.mutateRun(fixed.runId, () => fixed);
    await service.sweep();
    record = (await service.ledger.get(incidentId))!;
    expect(record).toMatchObject({ status: 'resolved', resolution: 'a later rss-sweep run (rss-3) succeeded' });
  });

  it('passes a verification only when the verifier reads clear and the failing type has succeeded since', async () => {
    const failed = makeRun({ runId: 'nightly-1', type: 'summarize-content', status: 'failed', queueState: null, attempt: 3, createdAt: '2026-03-01T09:58:00.000Z', finishedAt: '2026-03-01T10:00:00.000Z', error: 'timeout', failureReason: 'timeout' });
    await store.mutateRun(failed.runId, () => failed);
    await service.handleRunSettled(failed);
    const incidentId = (await service.ledger.list({})).incidents[0]!.incidentId;
    await settle(`incident:${incidentId}:e1:remediation:1`, 'success', { success: true, posture: 'healthy' });
    const remediationTaskId = (await service.ledger.get(incidentId))!.remediationTasks[0]!.taskId;
    const later = makeRun({ runId: 'summary-2', type: 'summarize-content', status: 'success', queueState: null, createdAt: '2026-03-01T10:01:00.000Z' });
    await store.mutateRun(later.runId, () => later);
    const verifierRun = `incident:${incidentId}:e1:verify:${remediationTaskId}`;
    await settle(verifierRun, 'success', { success: true, posture: 'healthy' });
    const record = (await service.ledger.get(incidentId))!;
    const verified = `system-monitor run ${verifierRun}: posture healthy; checked summarize-content runs since run nightly-1 failed: a later summarize-content run (summary-2) succeeded`;
    expect(record.verification).toEqual({ required: true, status: 'passed', summary: verified });
    expect(record).toMatchObject({ status: 'resolved', resolution: `remediation verified: ${verified}` });
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

describe('incident tasks and the lanes\' admission checks', () => {
  it('admit neither a policy task nor an operator remediation that its lane refuses, and store nothing', async () => {
    const store = new SqliteStateStore(join(tempDir('policies-refused-'), 'state.sqlite'));
    await store.open();
    try {
      const lanes = testLaneRegistry([{ type: 'system-monitor', admissionCheck: () => [{ path: '/config/monitorSetting', message: 'monitorSetting is not configured' }] }]);
      const service = sweepingService(store, { serviceGaps: () => [], checkTaskRequest: createTriggerCheck(tempDir('policies-workspace-'), lanes) });
      const { incidentId, remediationTasks } = await service.reportSignal(gapSignal());
      expect(remediationTasks).toEqual([]);
      await expect(service.remediate(incidentId, { taskType: 'system-monitor' }, operator('ops'))).rejects.toMatchObject({
        code: 'invalid_request',
        details: [{ path: '/config/monitorSetting', message: 'monitorSetting is not configured' }],
      });
      expect((await store.listRuns({ includeInternal: true })).total).toBe(0);
      expect((await service.ledger.get(incidentId))!.remediationTasks).toEqual([]);
    } finally {
      await store.close();
    }
  });
});

/** Finishes a run as the runner would (with `result` when given) and tells the incident service. */
async function settleRun(store: StateStore, service: IncidentService, clock: Clock, runId: string, status: 'success' | 'failed' | 'cancelled', result?: Record<string, unknown>): Promise<RunRecord> {
  const written = await store.mutateRun(runId, (run) => ({
    ...run!,
    status,
    queueState: null,
    finishedAt: clock.now().toISOString(),
    ...(result ? { result } : {}),
    ...(status === 'failed' ? { error: 'worker crashed', failureReason: 'worker-crash' } : {}),
  }));
  await service.handleRunSettled(written.after!);
  return written.after!;
}

/** An incident service over `store` with a manual clock and in-memory coordination, for sweep tests. */
function sweepingService(
  store: SqliteStateStore,
  sources: Pick<Parameters<typeof createIncidentService>[0], 'serviceGaps'> & Partial<Pick<Parameters<typeof createIncidentService>[0], 'knowledgeHealth' | 'checkTaskRequest'>>,
  clock: Clock = manualClock(),
) {
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

  it('keeps a service-gap incident open while the gap holds, whatever its verifier reads, and resolves it when the gap clears', async () => {
    const store = new SqliteStateStore(join(tempDir('sweep-gap-'), 'state.sqlite'));
    await store.open();
    try {
      const gaps = [{ agentId: 'community-helper', unit: 'orchestrator-community-helper.service', reason: 'unit-stopped' as const, detail: 'inactive/dead' }];
      const clock = manualClock();
      const service = sweepingService(store, { serviceGaps: () => gaps }, clock);
      await service.sweep();
      const { incidentId } = (await service.ledger.list({})).incidents[0]!;
      await settleRun(store, service, clock, `incident:${incidentId}:e1:remediation:1`, 'success', { success: true, posture: 'healthy' });
      const remediationTaskId = (await service.ledger.get(incidentId))!.remediationTasks[0]!.taskId;
      const verifierRun = `incident:${incidentId}:e1:verify:${remediationTaskId}`;
      await settleRun(store, service, clock, verifierRun, 'success', { success: true, posture: 'healthy' });
      let record = (await service.ledger.get(incidentId))!;
      expect(record.status).toBe('active');
      expect(record.verification).toEqual({
        required: true,
        status: 'failed',
        summary: `system-monitor run ${verifierRun}: posture healthy; checked the service-runtime signal service-gap:community-helper: still present: inactive/dead`,
      });
      await service.sweep();
      expect((await service.ledger.get(incidentId))!.status).toBe('active');

      gaps.length = 0;
      await service.sweep();
      record = (await service.ledger.get(incidentId))!;
      expect(record).toMatchObject({ status: 'resolved', resolution: 'signal cleared' });
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
