import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import type { Identity } from '../../src/domain/identity.js';
import { Fingerprints, incidentIdFor } from '../../src/incidents/fingerprint.js';
import type { StateStore } from '../../src/store/types.js';
import { BUILT_IN_APPROVAL_POLICY, createApprovalPolicy } from '../../src/runtime/approval-policy.js';
import { createRunCancel } from '../../src/runtime/run-cancel.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import type { ApprovalPolicyEntry } from '../../src/config/schema.js';
import { approvalHarness, refusalOf } from '../support/approval-harness.js';
import { tempDir, testConfig, writeConfigFile } from '../support/config.js';
import { operator } from '../support/identities.js';

const TYPES = TASK_CATALOG.map((e) => e.type);
const admin = (actor: string): Identity => ({ actor, role: 'admin', apiKeyLabel: actor, apiKeyExpiresAt: null });
const silent = pino({ level: 'silent' });

describe('approval policy resolution', () => {
  it('keeps today\'s behaviour when nothing is configured', () => {
    const policy = createApprovalPolicy({}, TYPES);
    expect(policy.forType('build-refactor')).toEqual(BUILT_IN_APPROVAL_POLICY);
    expect(BUILT_IN_APPROVAL_POLICY).toEqual({
      approverRole: 'operator',
      allowSelfApproval: true,
      expiresAfterMinutes: null,
      onExpiry: 'reject',
      requiredApprovals: 1,
      approverGroups: [],
    });
    expect(policy.expiresAtFor('build-refactor', new Date('2026-03-01T10:00:00Z'))).toBeNull();
  });

  it('takes a type\'s own fields first, then default\'s, then the built-in ones', () => {
    const policy = createApprovalPolicy(
      {
        default: { allowSelfApproval: false, expiresAfterMinutes: 60 },
        'agent-deploy': { approverRole: 'admin', onExpiry: 'escalate' },
        'build-refactor': { allowSelfApproval: true, expiresAfterMinutes: 0.5 },
      },
      TYPES,
    );
    const single = { requiredApprovals: 1, approverGroups: [] };
    expect(policy.forType('agent-deploy')).toEqual({ approverRole: 'admin', allowSelfApproval: false, expiresAfterMinutes: 60, onExpiry: 'escalate', ...single });
    expect(policy.forType('build-refactor')).toEqual({ approverRole: 'operator', allowSelfApproval: true, expiresAfterMinutes: 0.5, onExpiry: 'reject', ...single });
    expect(policy.forType('system-monitor')).toEqual({ approverRole: 'operator', allowSelfApproval: false, expiresAfterMinutes: 60, onExpiry: 'reject', ...single });
    expect(policy.expiresAtFor('build-refactor', new Date('2026-03-01T10:00:00Z'))).toBe('2026-03-01T10:00:30.000Z');
  });

  it('refuses a key that is neither default nor a task type of the catalog, at start', () => {
    expect(() => createApprovalPolicy({ 'build-refractor': { approverRole: 'admin' } }, TYPES)).toThrow(
      expect.objectContaining({ code: 'invalid_config', message: expect.stringMatching(/"build-refractor" is not a task type/) }),
    );
  });

  it('validates the config key: roles, fallbacks and a positive expiry only', () => {
    const load = (approvalPolicy: unknown) => {
      const dir = tempDir('policy-config-');
      return testConfig({ ORCHESTRATOR_CONFIG: writeConfigFile(dir, { approvalPolicy }) }, dir);
    };
    expect(load({ default: { approverRole: 'admin', onExpiry: 'escalate', expiresAfterMinutes: 15 } }).approvalPolicy).toEqual({
      default: { approverRole: 'admin', onExpiry: 'escalate', expiresAfterMinutes: 15 },
    });
    expect(testConfig().approvalPolicy).toEqual({});
    expect(() => load({ default: { approverRole: 'viewer' } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { onExpiry: 'ignore' } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { expiresAfterMinutes: 0 } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { allowSelfApprovals: false } })).toThrow(/approvalPolicy/);
    expect(load({ default: { requiredApprovals: 2, approverGroups: ['release'] } }).approvalPolicy).toEqual({
      default: { requiredApprovals: 2, approverGroups: ['release'] },
    });
    expect(() => load({ default: { requiredApprovals: 0 } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { requiredApprovals: 1.5 } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { requiredApprovals: 11 } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { approverGroups: ['release', 'release'] } })).toThrow(/approvalPolicy/);
    expect(() => load({ default: { approverGroups: [''] } })).toThrow(/approvalPolicy/);
  });
});

describe('approvals under a policy', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function setup(configured: Record<string, ApprovalPolicyEntry>) {
    const harness = await approvalHarness(configured);
    store = harness.store;
    return harness;
  }

  const refusal = refusalOf;

  it('records the requester, the expiry and an empty history when a run is held', async () => {
    const { hold, instance } = await setup({ 'system-monitor': { expiresAfterMinutes: 30 } });
    const run = await hold('ops');
    expect(run.approval).toMatchObject({ status: 'pending', requestedBy: 'ops', requestedAt: '2026-03-01T10:00:00.000Z', expiresAt: '2026-03-01T10:30:00.000Z', decisionHistory: [] });
    const listed = await instance().listPending();
    expect(listed.pending[0]).toMatchObject({ taskId: run.taskId, requestedBy: 'ops', expiresAt: '2026-03-01T10:30:00.000Z', decisionHistory: [], policy: { onExpiry: 'reject' } });
  });

  it('allows self-approval by default', async () => {
    const { hold, instance } = await setup({});
    const run = await hold('ops');
    const approvals = instance();
    const result = await approvals.decide(run.taskId, 'rejected', 'mine', operator('ops'));
    expect(result.approval).toMatchObject({ status: 'rejected', decidedBy: 'ops', requestedBy: 'ops' });
    expect(result.approval.decisionHistory).toEqual([{ at: '2026-03-01T10:00:00.000Z', actor: 'ops', decision: 'rejected', note: 'mine' }]);
  });

  it('refuses the requester where allowSelfApproval is false, with the reason, and lets another operator decide', async () => {
    const { hold, instance, store } = await setup({ 'system-monitor': { allowSelfApproval: false } });
    const run = await hold('ops');
    const approvals = instance();
    const refused = await refusal(approvals.decide(run.taskId, 'approved', null, operator('ops')));
    expect(refused).toEqual({ code: 'forbidden', message: expect.stringMatching(/ops requested this system-monitor run.*does not allow self-approval/) });
    expect((await store.getRun(run.runId))!.approval.status).toBe('pending');
    const decided = await approvals.decide(run.taskId, 'rejected', null, operator('someone-else'));
    expect(decided.approval).toMatchObject({ status: 'rejected', decidedBy: 'someone-else' });
  });

  it('refuses an operator with 403 where approverRole is admin, and lets an admin decide', async () => {
    const { hold, instance } = await setup({ default: { approverRole: 'admin' } });
    const run = await hold('requester');
    const approvals = instance();
    const refused = await refusal(approvals.decide(run.taskId, 'rejected', null, operator('ops')));
    expect(refused).toEqual({ code: 'forbidden', message: expect.stringMatching(/needs the admin role/) });
    expect((await approvals.decide(run.taskId, 'rejected', null, admin('boss'))).approval.status).toBe('rejected');
  });

  it('rejects an expired approval with reason expired when the clock passes its expiry, and not before', async () => {
    const { hold, instance, clock, store } = await setup({ 'system-monitor': { expiresAfterMinutes: 10 } });
    const run = await hold('ops');
    const approvals = instance();
    clock.advance(10 * 60_000 - 1);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [], escalated: [] });
    clock.advance(1);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [run.runId], escalated: [] });
    const after = (await store.getRun(run.runId))!;
    expect(after).toMatchObject({ status: 'failed', queueState: null, failureReason: 'approval_rejected' });
    expect(after.approval).toMatchObject({ status: 'rejected', note: 'expired', decidedBy: 'service', decidedAt: '2026-03-01T10:10:00.000Z' });
    expect(after.approval.decisionHistory).toEqual([
      { at: '2026-03-01T10:10:00.000Z', actor: 'service', decision: 'expired', note: 'no decision by 2026-03-01T10:10:00.000Z' },
    ]);
    expect(after.events.at(-1)).toMatchObject({ kind: 'approval', name: 'rejected', detail: 'expired' });
    expect((await approvals.listPending()).count).toBe(0);
    // A decision arriving afterwards meets a decided approval.
    expect(await refusal(approvals.decide(run.taskId, 'approved', null, operator('late')))).toMatchObject({ code: 'conflict' });
  });

  it('settles an expired approval at decision time, before any sweep: 409, rejected as expired', async () => {
    const { hold, instance, clock, store } = await setup({ 'system-monitor': { expiresAfterMinutes: 1 } });
    const run = await hold('ops');
    clock.advance(61_000);
    const refused = await refusal(instance().decide(run.taskId, 'approved', null, operator('late')));
    expect(refused).toEqual({ code: 'conflict', message: expect.stringMatching(/expired at 2026-03-01T10:01:00.000Z/) });
    expect((await store.getRun(run.runId))!.approval).toMatchObject({ status: 'rejected', note: 'expired', decidedBy: 'service' });
    expect(await store.listRuns({ type: 'system-monitor', status: 'pending', includeInternal: true })).toMatchObject({ total: 0 });
  });

  it('escalates an expired approval: the run stays held, one approval-backlog incident opens, a later decision resolves it', async () => {
    const { hold, instance, clock, store, ledger, policiesRun } = await setup({ 'build-refactor': { expiresAfterMinutes: 5, onExpiry: 'escalate' } });
    const run = await hold('ops', 'build-refactor', { scope: 'projects/app' });
    const approvals = instance();
    clock.advance(5 * 60_000);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [], escalated: [run.runId] });
    const held = (await store.getRun(run.runId))!;
    expect(held).toMatchObject({ status: 'pending', queueState: 'held' });
    expect(held.approval.status).toBe('pending');
    expect(held.approval.decisionHistory!.map((e) => [e.actor, e.decision])).toEqual([['service', 'escalated']]);

    const incidentId = incidentIdFor(Fingerprints.approvalExpired(run.taskId));
    const incident = (await ledger.get(incidentId))!;
    expect(incident).toMatchObject({ classification: 'approval-backlog', status: 'active', occurrences: 1, linkedRunIds: [run.runId] });
    expect(policiesRun).toEqual([incidentId]);

    // Later sweeps neither escalate again nor touch the incident.
    clock.advance(60_000);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [], escalated: [] });
    expect((await ledger.get(incidentId))!.occurrences).toBe(1);
    expect((await store.getRun(run.runId))!.approval.decisionHistory).toHaveLength(1);

    // Escalated approvals can still be decided; the decision resolves the incident.
    const decided = await approvals.decide(run.taskId, 'rejected', 'too late now', operator('ops2'));
    expect(decided.approval.decisionHistory.map((e) => e.decision)).toEqual(['escalated', 'rejected']);
    expect((await ledger.get(incidentId))!).toMatchObject({ status: 'resolved', resolution: 'approval rejected by ops2' });
  });

  it('resolves the approval-backlog incident when an escalated held run is cancelled', async () => {
    const { hold, instance, clock, store, ledger } = await setup({ 'build-refactor': { expiresAfterMinutes: 5, onExpiry: 'escalate' } });
    const run = await hold('ops', 'build-refactor', { scope: 'projects/app' });
    const approvals = instance();
    clock.advance(5 * 60_000);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [], escalated: [run.runId] });
    const incidentId = incidentIdFor(Fingerprints.approvalExpired(run.taskId));
    expect((await ledger.get(incidentId))!.status).toBe('active');

    const cancels = createRunCancel({
      store,
      clock,
      logger: silent,
      invalidator: { invalidate: async () => undefined },
      stopLocal: () => false,
      onRunFinished: async () => undefined,
      settleEscalation: (r) => approvals.expiry.settleEscalation(r),
    });
    expect(await cancels.cancel(run.runId, 'no longer needed', operator('ops2'))).toEqual({ runId: run.runId, status: 'cancelled' });
    expect((await ledger.get(incidentId))!).toMatchObject({ status: 'resolved', resolution: 'approval cancelled by ops2' });
  });

  it('decides each expired approval once when two instances sweep at the same time', async () => {
    const { hold, instance, clock, store, ledger } = await setup({
      'system-monitor': { expiresAfterMinutes: 1 },
      'build-refactor': { expiresAfterMinutes: 1, onExpiry: 'escalate' },
    });
    const rejectedRuns = [await hold('a'), await hold('b')];
    const escalatedRun = await hold('c', 'build-refactor', { scope: 'projects/app' });
    const [one, two] = [instance(), instance()];
    clock.advance(60_000);
    const [first, second] = await Promise.all([one.expiry.sweep(), two.expiry.sweep()]);
    expect([...first.rejected, ...second.rejected].sort()).toEqual(rejectedRuns.map((r) => r.runId).sort());
    expect([...first.escalated, ...second.escalated]).toEqual([escalatedRun.runId]);
    for (const run of rejectedRuns) {
      const stored = (await store.getRun(run.runId))!;
      expect(stored.approval.decisionHistory!.map((e) => e.decision)).toEqual(['expired']);
      expect(stored.events.filter((e) => e.kind === 'approval' && e.name === 'rejected')).toHaveLength(1);
    }
    const escalated = (await store.getRun(escalatedRun.runId))!;
    expect(escalated.approval.decisionHistory!.map((e) => e.decision)).toEqual(['escalated']);
    const incidents = (await ledger.all()).filter((i) => i.classification === 'approval-backlog');
    expect(incidents).toHaveLength(1);
    expect(incidents[0]!.occurrences).toBe(1);
  });
});
