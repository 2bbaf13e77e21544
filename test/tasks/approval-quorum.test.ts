import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalPolicyEntry } from '../../src/config/schema.js';
import type { Identity } from '../../src/domain/identity.js';
import { Fingerprints, incidentIdFor } from '../../src/incidents/fingerprint.js';
import { openStateStore } from '../../src/store/open.js';
import { POSTGRES_TARGET } from '../../src/config/store-targets.js';
import type { StateStore } from '../../src/store/types.js';
import { replayRunIdFor } from '../../src/runtime/approvals.js';
import { approvalHarness, refusalOf } from '../support/approval-harness.js';
import { operator } from '../support/identities.js';
import { dropTestSchemas, postgresUrlWithSchema, TEST_DATABASE_URL, uniqueSchema } from '../support/postgres.js';

/** An operator key in the given approver groups. */
const member = (actor: string, ...groups: string[]): Identity => ({ ...operator(actor), groups });

describe('approvals by quorum and groups', () => {
  const stores: StateStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
  });

  async function setup(configured: Record<string, ApprovalPolicyEntry>) {
    const harness = await approvalHarness(configured);
    stores.push(harness.store);
    return harness;
  }

  it('holds the run at "1 of 2" after one approval and admits the replay at the second, by another actor', async () => {
    const { hold, instance, store } = await setup({ 'system-monitor': { requiredApprovals: 2 } });
    const run = await hold('requester');
    const approvals = instance();
    expect((await approvals.listPending()).pending[0]).toMatchObject({ approvals: { received: 0, required: 2 }, policy: { requiredApprovals: 2 } });

    const first = await approvals.decide(run.taskId, 'approved', 'looks right', operator('alice'));
    expect(first).toEqual({ status: 'ok', approval: expect.objectContaining({ status: 'pending', approvals: { received: 1, required: 2 }, replayRunId: null, decidedBy: null }) });
    expect(first).not.toHaveProperty('replayRunId');
    const stillHeld = (await store.getRun(run.runId))!;
    expect(stillHeld).toMatchObject({ status: 'pending', queueState: 'held' });
    expect(stillHeld.events.at(-1)).toMatchObject({ kind: 'approval', name: 'approval-received', detail: '1 of 2 approvals' });
    expect(await store.getRun(replayRunIdFor(run.taskId))).toBeNull();
    expect((await approvals.listPending()).pending[0]).toMatchObject({ taskId: run.taskId, approvals: { received: 1, required: 2 } });

    const second = await approvals.decide(run.taskId, 'approved', null, operator('bob'));
    expect(second).toMatchObject({ status: 'ok', replayRunId: replayRunIdFor(run.taskId), approval: { status: 'approved', decidedBy: 'bob', approvals: { received: 2, required: 2 } } });
    expect(second.approval.decisionHistory.map((e) => [e.actor, e.decision])).toEqual([
      ['alice', 'approved'],
      ['bob', 'approved'],
    ]);
    expect((await store.getRun(run.runId))!.status).toBe('success');
    expect((await store.getRun(replayRunIdFor(run.taskId)))!.approvedFromTaskId).toBe(run.taskId);
  });

  it('answers 409 to a second decision by the same actor, approving or rejecting, and leaves the count alone', async () => {
    const { hold, instance, store } = await setup({ 'system-monitor': { requiredApprovals: 2 } });
    const run = await hold('requester');
    const approvals = instance();
    await approvals.decide(run.taskId, 'approved', null, operator('alice'));
    for (const decision of ['approved', 'rejected'] as const) {
      expect(await refusalOf(approvals.decide(run.taskId, decision, null, operator('alice')))).toMatchObject({
        code: 'conflict',
        message: expect.stringMatching(/^alice already decided approval .* \(approved at 2026-03-01T10:00:00.000Z\); each approver decides once$/),
      });
    }
    const stored = (await store.getRun(run.runId))!;
    expect(stored.approval.status).toBe('pending');
    expect(stored.approval.decisionHistory).toHaveLength(1);
  });

  it('never counts the requester where self-approval is off: refused with 403, the quorum still needs two others', async () => {
    const { hold, instance, store } = await setup({ 'system-monitor': { requiredApprovals: 2, allowSelfApproval: false } });
    const run = await hold('requester');
    const approvals = instance();
    await approvals.decide(run.taskId, 'approved', null, operator('alice'));
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('requester')))).toMatchObject({ code: 'forbidden' });
    expect((await store.getRun(run.runId))!.approval).toMatchObject({ status: 'pending' });
    const done = await approvals.decide(run.taskId, 'approved', null, operator('bob'));
    expect(done.approval.decisionHistory.map((e) => e.actor)).toEqual(['alice', 'bob']);
    expect(done.replayRunId).toBe(replayRunIdFor(run.taskId));
  });

  it('ends the approval at one rejection by an eligible approver, whatever approvals came before', async () => {
    const { hold, instance, store } = await setup({ 'system-monitor': { requiredApprovals: 3 } });
    const run = await hold('requester');
    const approvals = instance();
    await approvals.decide(run.taskId, 'approved', null, operator('alice'));
    await approvals.decide(run.taskId, 'approved', null, operator('bob'));
    const rejected = await approvals.decide(run.taskId, 'rejected', 'not this week', operator('carol'));
    expect(rejected).not.toHaveProperty('replayRunId');
    expect(rejected.approval).toMatchObject({ status: 'rejected', decidedBy: 'carol', approvals: { received: 2, required: 3 } });
    expect((await store.getRun(run.runId))!).toMatchObject({ status: 'failed', failureReason: 'approval_rejected' });
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('dave')))).toMatchObject({
      code: 'conflict',
      message: expect.stringMatching(/no longer pending \(status rejected\)/),
    });
    expect(await store.getRun(replayRunIdFor(run.taskId))).toBeNull();
  });

  it('lets only keys of the approver groups decide', async () => {
    const { hold, instance } = await setup({ 'system-monitor': { requiredApprovals: 2, approverGroups: ['sre', 'release'] } });
    const run = await hold('requester');
    const approvals = instance();
    expect(await refusalOf(approvals.decide(run.taskId, 'rejected', null, operator('outsider')))).toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/approver groups sre, release .*outsider's key has none/),
    });
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, member('dev', 'frontend')))).toMatchObject({ code: 'forbidden' });
    await approvals.decide(run.taskId, 'approved', null, member('alice', 'sre'));
    const done = await approvals.decide(run.taskId, 'approved', null, member('bob', 'release', 'frontend'));
    expect(done.approval.status).toBe('approved');
  });

  it('expires an approval whose quorum was not met as expiry does without one, keeping the approvals it received', async () => {
    const { hold, instance, clock, store } = await setup({ 'system-monitor': { requiredApprovals: 2, expiresAfterMinutes: 10 } });
    const run = await hold('requester');
    const approvals = instance();
    await approvals.decide(run.taskId, 'approved', null, operator('alice'));
    clock.advance(10 * 60_000);
    expect(await approvals.expiry.sweep()).toEqual({ rejected: [run.runId], escalated: [] });
    const after = (await store.getRun(run.runId))!;
    expect(after).toMatchObject({ status: 'failed', failureReason: 'approval_rejected' });
    expect(after.approval).toMatchObject({ status: 'rejected', note: 'expired', decidedBy: 'service' });
    expect(after.approval.decisionHistory!.map((e) => [e.actor, e.decision])).toEqual([
      ['alice', 'approved'],
      ['service', 'expired'],
    ]);
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('bob')))).toMatchObject({ code: 'conflict' });
    expect(await store.getRun(replayRunIdFor(run.taskId))).toBeNull();
  });

  it('keeps an escalated approval\'s incident open until the quorum decides it', async () => {
    const { hold, instance, clock, ledger } = await setup({ 'system-monitor': { requiredApprovals: 2, expiresAfterMinutes: 1, onExpiry: 'escalate' } });
    const run = await hold('requester');
    const approvals = instance();
    clock.advance(60_000);
    expect((await approvals.expiry.sweep()).escalated).toEqual([run.runId]);
    const incidentId = incidentIdFor(Fingerprints.approvalExpired(run.taskId));
    await approvals.decide(run.taskId, 'approved', null, operator('alice'));
    expect((await ledger.get(incidentId))!.status).toBe('active');
    await approvals.decide(run.taskId, 'approved', null, operator('bob'));
    expect((await ledger.get(incidentId))!.status).toBe('resolved');
  });
});

describe('two instances deciding at once', () => {
  const schemas: string[] = [];
  const stores: StateStore[] = [];
  afterEach(async () => {
    for (const s of stores.splice(0)) await s.close();
    if (TEST_DATABASE_URL) await dropTestSchemas(TEST_DATABASE_URL, schemas.splice(0));
  });

  /** Two approvers reach the quorum together: exactly one of them admits the replay, the other meets 409. */
  async function raceToQuorum(openStore?: () => StateStore) {
    const harness = await approvalHarness({ 'system-monitor': { requiredApprovals: 2 } }, openStore);
    stores.push(harness.store);
    const second = openStore ? openStore() : harness.store;
    if (second !== harness.store) {
      await second.open();
      stores.push(second);
    }
    const run = await harness.hold('requester');
    await harness.instance().decide(run.taskId, 'approved', null, operator('alice'));
    const outcomes = await Promise.allSettled([
      harness.instance().decide(run.taskId, 'approved', null, operator('bob')),
      harness.instance(second).decide(run.taskId, 'approved', null, operator('carol')),
    ]);
    const admitted = outcomes.filter((o) => o.status === 'fulfilled');
    expect(admitted).toHaveLength(1);
    expect(admitted[0]!.value).toMatchObject({ replayRunId: replayRunIdFor(run.taskId) });
    const lost = outcomes.find((o) => o.status === 'rejected');
    expect(lost?.status === 'rejected' && (lost.reason as { code?: string }).code).toBe('conflict');
    const stored = (await harness.store.getRun(run.runId))!;
    expect(stored.approval.decisionHistory!.filter((e) => e.decision === 'approved')).toHaveLength(2);
    expect(stored.events.filter((e) => e.kind === 'approval' && e.name === 'replay-admitted')).toHaveLength(1);
    const replays = await harness.store.listRuns({ includeInternal: true, limit: 50 });
    expect(replays.items.filter((r) => r.approvedFromTaskId === run.taskId).map((r) => r.runId)).toEqual([replayRunIdFor(run.taskId)]);
  }

  it('on one file store', async () => {
    await raceToQuorum();
  });

  it.skipIf(!TEST_DATABASE_URL)('on a shared PostgreSQL, each instance with its own connection pool', async () => {
    const schema = uniqueSchema('quorum');
    schemas.push(schema);
    await raceToQuorum(() => openStateStore(POSTGRES_TARGET, { databaseUrl: postgresUrlWithSchema(TEST_DATABASE_URL!, schema) }));
  });
});
