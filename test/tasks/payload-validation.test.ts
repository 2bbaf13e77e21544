import { describe, expect, it } from 'vitest';
import { validatePayload, validateTrigger } from '../../src/tasks/payload-validation.js';

function rejected(body: unknown) {
  const outcome = validateTrigger(body);
  if (outcome.ok) throw new Error(`expected a rejection, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe('validateTrigger: body and type', () => {
  it('accepts a public type with no payload as an empty payload', () => {
    const outcome = validateTrigger({ type: 'doc-sync' });
    expect(outcome).toMatchObject({ ok: true, type: 'doc-sync', payload: {} });
    if (outcome.ok) expect(outcome.entry.type).toBe('doc-sync');
  });

  it('refuses a body that is not an object, a missing type and a non-object payload', () => {
    expect(rejected([])).toMatchObject({ statusCode: 400, code: 'invalid_request' });
    expect(rejected({}).details).toEqual([{ path: '/type', message: 'is required' }]);
    expect(rejected({ type: 7 }).details[0]!.path).toBe('/type');
    expect(rejected({ type: 'doc-sync', payload: [1] }).details).toEqual([{ path: '/payload', message: 'must be an object' }]);
    expect(rejected({ type: 'doc-sync', payload: null }).code).toBe('invalid_request');
  });

  it('refuses body fields other than type and payload', () => {
    const out = rejected({ type: 'doc-sync', idempotencyKey: 'k1' });
    expect(out.code).toBe('invalid_request');
    expect(out.details).toEqual([{ path: '/idempotencyKey', message: 'is not an accepted field' }]);
  });

  it('refuses an unknown type as invalid_request', () => {
    const out = rejected({ type: 'make-coffee', payload: {} });
    expect(out).toMatchObject({ statusCode: 400, code: 'invalid_request' });
    expect(out.message).toContain("'make-coffee'");
    expect(out.details[0]!.path).toBe('/type');
  });

  it.each(['startup', 'heartbeat', 'doc-change'])('refuses internal type %s as task_type_internal', (type) => {
    expect(rejected({ type, payload: {} })).toMatchObject({ statusCode: 400, code: 'task_type_internal' });
  });
});

describe('validateTrigger: reserved fields', () => {
  it('refuses payload keys starting with __', () => {
    const out = rejected({ type: 'doc-sync', payload: { __replay: true } });
    expect(out.code).toBe('reserved_field');
    expect(out.details).toEqual([{ path: '/payload/__replay', message: expect.stringContaining('reserved') }]);
  });

  it.each(['approvedFromTaskId', 'approvalDecisionId', 'approvalId', 'approvedBy', 'approved', 'decidedBy'])(
    'refuses approval linkage field %s',
    (field) => {
      const out = rejected({ type: 'build-refactor', payload: { scope: 'projects/app', [field]: 'x' } });
      expect(out.code).toBe('reserved_field');
      expect(out.details.map((d) => d.path)).toEqual([`/payload/${field}`]);
    },
  );

  it('refuses an idempotency key in the approval-replay namespace', () => {
    const out = rejected({ type: 'doc-sync', payload: { idempotencyKey: 'approval-replay:1234' } });
    expect(out.code).toBe('reserved_field');
    expect(out.details[0]!.path).toBe('/payload/idempotencyKey');
  });

  it('reports every reserved field at once, before schema problems', () => {
    const out = rejected({ type: 'agent-deploy', payload: { __a: 1, approved: true, agentName: 42 } });
    expect(out.code).toBe('reserved_field');
    expect(out.details.map((d) => d.path).sort()).toEqual(['/payload/__a', '/payload/approved']);
  });

  it('allows the same names nested below the top level', () => {
    expect(validateTrigger({ type: 'agent-deploy', payload: { agentName: 'a', config: { approved: true } } }).ok).toBe(true);
  });
});

describe('validateTrigger: payload schemas', () => {
  it('checks the idempotency key format', () => {
    for (const bad of ['', 'has space', 'tab\tkey', 'x'.repeat(201), 'ünicode']) {
      const out = rejected({ type: 'doc-sync', payload: { idempotencyKey: bad } });
      expect(out.code, bad).toBe('invalid_request');
      expect(out.details[0]!.path).toBe('/payload/idempotencyKey');
    }
    expect(validateTrigger({ type: 'doc-sync', payload: { idempotencyKey: 'x'.repeat(200) } }).ok).toBe(true);
    expect(validateTrigger({ type: 'doc-sync', payload: { idempotencyKey: 'nightly:2024-01-01#a' } }).ok).toBe(true);
  });

  it('checks requiresApproval is a boolean on any type', () => {
    const out = rejected({ type: 'system-monitor', payload: { requiresApproval: 'yes' } });
    expect(out.details).toEqual([{ path: '/payload/requiresApproval', message: 'must be boolean' }]);
  });

  it('keeps unknown fields of a known type', () => {
    const payload = { content: 'hello', format: 'bullets', audience: 'board', extra: { nested: [1, 2] } };
    const outcome = validateTrigger({ type: 'summarize-content', payload });
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.payload).toEqual(payload);
  });

  it('reports wrong field types with their payload paths', () => {
    const out = rejected({
      type: 'build-refactor',
      payload: { scope: 5, constraints: { maxFilesChanged: 'many', runTests: 'yes' } },
    });
    expect(out.code).toBe('invalid_request');
    expect(out.details).toEqual(
      expect.arrayContaining([
        { path: '/payload/scope', message: 'must be string' },
        { path: '/payload/constraints/maxFilesChanged', message: 'must be integer' },
        { path: '/payload/constraints/runTests', message: 'must be boolean' },
      ]),
    );
  });

  it('bounds build-refactor maxFilesChanged to 1..50', () => {
    const at = (n: number) => validateTrigger({ type: 'build-refactor', payload: { scope: 'p', constraints: { maxFilesChanged: n } } });
    expect(at(1).ok).toBe(true);
    expect(at(50).ok).toBe(true);
    for (const n of [0, 51, 2.5]) {
      const out = at(n);
      expect(out.ok, String(n)).toBe(false);
      if (!out.ok) expect(out.details[0]!.path).toBe('/payload/constraints/maxFilesChanged');
    }
  });

  it('requires autonomous-work-cycle requestedOutcome and bounds maxSteps', () => {
    expect(rejected({ type: 'autonomous-work-cycle', payload: {} }).details).toEqual([
      { path: '/payload/requestedOutcome', message: 'is required' },
    ]);
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: '' } }).details[0]!.path).toBe(
      '/payload/requestedOutcome',
    );
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'x'.repeat(501) } }).code).toBe(
      'invalid_request',
    );
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'fix it', maxSteps: 26 } }).details).toEqual([
      { path: '/payload/maxSteps', message: expect.stringContaining('25') },
    ]);
    expect(validateTrigger({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'fix it', maxSteps: 25 } }).ok).toBe(true);
  });

  it('restricts enumerated fields to their values', () => {
    const out = rejected({ type: 'summarize-content', payload: { content: 'x', format: 'haiku' } });
    expect(out.details).toEqual([{ path: '/payload/format', message: 'must be one of: executive_summary, bullets' }]);
    expect(rejected({ type: 'qa-verification', payload: { target: 't', mode: 'yolo' } }).details[0]!.path).toBe('/payload/mode');
  });

  it('reports one detail for a value matching none of a union’s shapes', () => {
    const out = rejected({ type: 'data-extraction', payload: { source: { url: 'x' }, format: 'csv' } });
    expect(out.details).toEqual([{ path: '/payload/source', message: expect.stringContaining('accepted shape') }]);
  });

  it('checks explicit build-refactor change sets', () => {
    const ok = { scope: 'p', changes: [{ path: 'p/a.ts', search: 'a', replace: 'b' }, { path: 'p/b.ts', delete: true }] };
    expect(validateTrigger({ type: 'build-refactor', payload: ok }).ok).toBe(true);
    const bad = rejected({ type: 'build-refactor', payload: { scope: 'p', changes: [{ path: 'p/a.ts', delete: false }] } });
    expect(bad.details[0]!.path).toBe('/payload/changes/0');
  });

  it('checks agent-deploy names', () => {
    expect(rejected({ type: 'agent-deploy', payload: {} }).details).toEqual([{ path: '/payload/agentName', message: 'is required' }]);
    expect(rejected({ type: 'agent-deploy', payload: { agentName: '../etc' } }).details[0]!.path).toBe('/payload/agentName');
    expect(validateTrigger({ type: 'agent-deploy', payload: { agentName: 'doc-specialist', tags: ['a'] } }).ok).toBe(true);
  });

  it('validatePayload serves internal types too (for admission of service-made runs)', () => {
    expect(validatePayload('doc-change', { paths: ['a.md'] })).toEqual([]);
    expect(validatePayload('doc-change', {})).toEqual([{ path: '/payload/paths', message: 'is required' }]);
  });
});
