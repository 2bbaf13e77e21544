import Type from 'typebox';
import { afterEach, describe, expect, it } from 'vitest';
import { createSecretRedactor, KNOWN_SECRET_MARKER } from '../../src/redaction/known-secrets.js';
import type { StateStore } from '../../src/store/types.js';
import { replayRunIdFor } from '../../src/runtime/approvals.js';
import { defineTaskType } from '../../src/task-types/define-task-type.js';
import { approvalHarness, refusalOf } from '../support/approval-harness.js';
import { operator } from '../support/identities.js';

describe('approve with input', () => {
  let store: StateStore | null = null;
  afterEach(async () => {
    await store?.close();
    store = null;
  });

  async function heldDeploy(requiredApprovals = 1) {
    const harness = await approvalHarness({ 'agent-deploy': { requiredApprovals } });
    store = harness.store;
    const run = await harness.hold('requester', 'agent-deploy', { agentName: 'summarization-agent', version: '1.0.0' });
    expect(run.approval.status).toBe('pending');
    return { ...harness, run, approvals: harness.instance() };
  }

  it('shows the type\'s approval input schema on the approval', async () => {
    const { approvals, run } = await heldDeploy();
    const shown = await approvals.get(run.taskId);
    expect(shown.approvalInputSchema).toMatchObject({ type: 'object', properties: { deployName: { type: 'string' }, version: { type: 'string' } } });
  });

  it('merges the checked input into the replay\'s payload and keeps it on the decision entry', async () => {
    const { approvals, run, store } = await heldDeploy();
    const decided = await approvals.decide(run.taskId, 'approved', 'to staging', operator('alice'), { deployName: 'staging-summarizer', version: '1.0.1' });
    expect(decided.approval.decisionHistory).toEqual([
      expect.objectContaining({ actor: 'alice', decision: 'approved', input: { deployName: 'staging-summarizer', version: '1.0.1' } }),
    ]);
    const replay = (await store.getRun(replayRunIdFor(run.taskId)))!;
    expect(replay.payload).toMatchObject({ agentName: 'summarization-agent', deployName: 'staging-summarizer', version: '1.0.1' });
    // The held run keeps what was requested.
    expect((await store.getRun(run.runId))!.payload).toEqual({ agentName: 'summarization-agent', version: '1.0.0' });
  });

  it('replaces the service\'s own secrets in the input it keeps, as in a payload', async () => {
    const { instance, run, store } = await heldDeploy();
    const approvals = instance(store, { redact: createSecretRedactor(['service-secret-0042']) });
    const decided = await approvals.decide(run.taskId, 'approved', null, operator('alice'), { version: 'v-service-secret-0042' });
    expect(decided.approval.decisionHistory[0]!.input).toEqual({ version: `v-${KNOWN_SECRET_MARKER}` });
    expect((await store.getRun(replayRunIdFor(run.taskId)))!.payload.version).toBe(`v-${KNOWN_SECRET_MARKER}`);
  });

  it('merges every approver\'s input in decision order, the later over the earlier', async () => {
    const { approvals, run, store } = await heldDeploy(2);
    const first = await approvals.decide(run.taskId, 'approved', null, operator('alice'), { deployName: 'canary', version: '2.0.0' });
    expect(first.approval).toMatchObject({ status: 'pending', approvals: { received: 1, required: 2 } });
    await approvals.decide(run.taskId, 'approved', null, operator('bob'), { deployName: 'production' });
    expect((await store.getRun(replayRunIdFor(run.taskId)))!.payload).toMatchObject({ deployName: 'production', version: '2.0.0' });
  });

  it('refuses reserved fields with reserved_field, naming each, and records nothing', async () => {
    const { approvals, run, store } = await heldDeploy();
    for (const field of ['__actor', 'approvedFromTaskId', 'idempotencyKey', 'requiresApproval']) {
      expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('alice'), { [field]: 'x' }))).toMatchObject({
        code: 'reserved_field',
        details: [{ path: `/body/input/${field}`, message: expect.any(String) }],
      });
    }
    expect((await store.getRun(run.runId))!.approval).toMatchObject({ status: 'pending', decisionHistory: [] });
  });

  it('refuses input outside the schema, on a rejection, and for a type that declares none', async () => {
    const { approvals, run, hold } = await heldDeploy();
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('alice'), { deployName: 'Not A Name' }))).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/input/deployName', message: expect.any(String) }],
    });
    expect(await refusalOf(approvals.decide(run.taskId, 'approved', null, operator('alice'), { agentName: 'other-agent' }))).toMatchObject({
      code: 'invalid_request',
      details: [{ path: '/body/input/agentName', message: 'is not an accepted field here' }],
    });
    expect(await refusalOf(approvals.decide(run.taskId, 'rejected', null, operator('alice'), { deployName: 'x' }))).toMatchObject({
      code: 'invalid_request',
      message: expect.stringMatching(/rejection replays nothing/),
    });
    const monitor = await hold('requester');
    expect(await refusalOf(approvals.decide(monitor.taskId, 'approved', null, operator('alice'), { note: 'x' }))).toMatchObject({
      code: 'invalid_request',
      message: "task type 'system-monitor' declares no approval input",
    });
  });

  it('refuses at definition an approval input field that is not a payload field or is a scope field', () => {
    const base = {
      type: 'probe',
      label: 'Probe',
      purpose: 'p',
      agentId: null,
      executor: 'handler' as const,
      retryable: true,
      scopeFields: ['scope'],
      payloadSchema: Type.Object({ scope: Type.String(), target: Type.String() }),
      resultSchema: Type.Object({}),
    };
    expect(defineTaskType({ ...base, approvalInputSchema: Type.Object({ target: Type.String() }) }).approvalInputSchema).toBeDefined();
    expect(() => defineTaskType({ ...base, approvalInputSchema: Type.Object({ other: Type.String() }) })).toThrow(/'other' is not a payload field/);
    expect(() => defineTaskType({ ...base, approvalInputSchema: Type.Object({ scope: Type.String() }) })).toThrow(/'scope' is a scope field/);
  });
});
