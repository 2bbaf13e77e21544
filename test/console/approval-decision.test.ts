import { describe, expect, it } from 'vitest';
import { alreadyDecidedBy, approvalInputBody, approvalInputFields, decisionOutcome, quorumProgress } from '../../console/src/lib/approval-decision.js';
import type { DecisionAnswer } from '../../src/runtime/approval-answer.js';
import { getTaskType } from '../../src/runtime/catalog.js';

const at = '2026-03-01T10:00:00.000Z';

describe('the approvals page helpers', () => {
  it('builds form fields from agent-deploy\'s approval input schema and sends only what was filled in', () => {
    const schema = getTaskType('agent-deploy')!.approvalInputSchema as unknown as Record<string, unknown>;
    const fields = approvalInputFields(schema);
    expect(fields.map((f) => [f.name, f.kind])).toEqual([
      ['deployName', 'string'],
      ['version', 'string'],
    ]);
    expect(fields[0]).toMatchObject({ pattern: '^[a-z0-9-]{1,64}$' });
    expect(approvalInputBody(fields, { deployName: ' staging ', version: '' })).toEqual({ deployName: 'staging' });
    expect(approvalInputBody(fields, {})).toBeNull();
    expect(approvalInputFields(null)).toEqual([]);
  });

  it('types numbers and booleans, and leaves a non-number as text for the service to refuse', () => {
    const fields = approvalInputFields({ properties: { n: { type: 'integer' }, ok: { type: 'boolean' }, list: { type: 'array' } } });
    expect(fields.map((f) => f.name)).toEqual(['n', 'ok']);
    expect(approvalInputBody(fields, { n: '3', ok: 'false' })).toEqual({ n: 3, ok: false });
    expect(approvalInputBody(fields, { n: 'three' })).toEqual({ n: 'three' });
  });

  it('shows the progress only where more than one approval is required, and who already decided', () => {
    expect(quorumProgress({ approvals: { received: 1, required: 2 } })).toBe('1 of 2 approvals');
    expect(quorumProgress({ approvals: { received: 0, required: 1 } })).toBeNull();
    const history = [{ at, actor: 'alice', decision: 'approved' as const, note: null }];
    expect(alreadyDecidedBy({ decisionHistory: history }, 'alice')).toBe(true);
    expect(alreadyDecidedBy({ decisionHistory: history }, 'bob')).toBe(false);
  });

  it('reports a decision short of the quorum as recorded, and a final one as decided', () => {
    const approval = { status: 'pending', decidedBy: null, approvals: { received: 1, required: 2 } } as unknown as DecisionAnswer['approval'];
    expect(decisionOutcome('run-1', { status: 'ok', approval }, 'approved')).toBe('Recorded your approval of run-1: 1 of 2 approvals');
    const decided = { status: 'approved', decidedBy: 'bob', approvals: { received: 2, required: 2 } } as unknown as DecisionAnswer['approval'];
    expect(decisionOutcome('run-1', { status: 'ok', approval: decided, replayRunId: 'approval-replay:t' }, 'approved')).toBe(
      'Decided run-1: approved by bob; replay run approval-replay:t',
    );
  });
});
