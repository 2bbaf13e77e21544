import { describe, expect, it } from 'vitest';
import { DomainError, type ErrorDetail } from '../../src/domain/errors.js';
import { SERVICE_RUN_ID_PREFIXES } from '../../src/domain/service-run-ids.js';
import { workRunIdFor } from '../../src/business/intake.js';
import { taskKey } from '../../src/incidents/policy.js';
import { repairRunId } from '../../src/knowledge/repair-loop.js';
import { slotRunId } from '../../src/scheduler/scheduler.js';
import { scheduleRunId } from '../../src/schedules/schedule-record.js';
import { replayRunIdFor } from '../../src/runtime/approvals.js';
import { followUpKey } from '../../src/lanes/nightly-batch/handler.js';
import { checkTaskRequest, validatePayload, type TaskRequest } from '../../src/runtime/payload-validation.js';
import { rerouteRunId, stepRunId } from '../../src/lanes/integration-workflow/driver.js';

/** The body shape ({type: non-empty string, payload?: object}) is the trigger route schema's job; see test/http. */
function rejected(request: TaskRequest): { code: string; message: string; details: ErrorDetail[] } {
  try {
    const outcome = checkTaskRequest(request);
    throw new Error(`expected a rejection, got ${JSON.stringify(outcome)}`);
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    return { code: err.code, message: err.message, details: err.details as ErrorDetail[] };
  }
}

const accepts = (request: TaskRequest) => checkTaskRequest(request).type === request.type;

describe('checkTaskRequest: type', () => {
  it('accepts a public type with no payload as an empty payload', () => {
    const outcome = checkTaskRequest({ type: 'doc-sync' });
    expect(outcome).toMatchObject({ type: 'doc-sync', payload: {} });
    expect(outcome.entry.type).toBe('doc-sync');
  });

  it('refuses an unknown type as invalid_request', () => {
    const out = rejected({ type: 'make-coffee', payload: {} });
    expect(out.code).toBe('invalid_request');
    expect(out.message).toContain("'make-coffee'");
    expect(out.details[0]!.path).toBe('/body/type');
  });

  it.each(['startup', 'heartbeat', 'doc-change'])('refuses internal type %s as task_type_internal', (type) => {
    expect(rejected({ type, payload: {} }).code).toBe('task_type_internal');
  });
});

describe('checkTaskRequest: reserved fields', () => {
  it('refuses payload keys starting with __', () => {
    const out = rejected({ type: 'doc-sync', payload: { __replay: true } });
    expect(out.code).toBe('reserved_field');
    expect(out.details).toEqual([{ path: '/body/payload/__replay', message: expect.stringContaining('reserved') }]);
  });

  it.each(['approvedFromTaskId', 'approvalDecisionId', 'approvalId', 'approvedBy', 'approved', 'decidedBy'])(
    'refuses approval linkage field %s',
    (field) => {
      const out = rejected({ type: 'build-refactor', payload: { scope: 'projects/app', [field]: 'x' } });
      expect(out.code).toBe('reserved_field');
      expect(out.details.map((d) => d.path)).toEqual([`/body/payload/${field}`]);
    },
  );

  it('refuses an idempotency key in the approval-replay namespace', () => {
    const out = rejected({ type: 'doc-sync', payload: { idempotencyKey: 'approval-replay:1234' } });
    expect(out.code).toBe('reserved_field');
    expect(out.details[0]!.path).toBe('/body/payload/idempotencyKey');
  });

  it.each(Object.values(SERVICE_RUN_ID_PREFIXES))('refuses an idempotency key starting with %s, naming the prefix', (prefix) => {
    const out = rejected({ type: 'doc-sync', payload: { idempotencyKey: `${prefix}taken` } });
    expect(out.code).toBe('reserved_field');
    expect(out.message).toBe(`payload.idempotencyKey starts with '${prefix}', a prefix the service reserves for its own run ids`);
    expect(out.details).toEqual([{ path: '/body/payload/idempotencyKey', message: expect.stringContaining(`'${prefix}'`) }]);
  });

  it('reserves the named namespaces and every run id the service builds', () => {
    expect(Object.values(SERVICE_RUN_ID_PREFIXES)).toEqual(expect.arrayContaining(['schedule:', 'flow:', 'approval-replay:', 'incident:']));
    const at = new Date('2026-03-01T10:00:00.000Z');
    const incident = { incidentId: 'inc-1', episode: 2 } as Parameters<typeof taskKey>[0];
    const built = [
      scheduleRunId('nightly', at),
      replayRunIdFor('task-1'),
      taskKey(incident, 'remediation:1'),
      slotRunId('heartbeat', at),
      slotRunId('nightly-batch', at),
      followUpKey({ timestamp: '2026-03-01T09:00:00Z', itemUrl: 'http://127.0.0.1/a' } as Parameters<typeof followUpKey>[0]),
      repairRunId('docs', at, 60_000),
      workRunIdFor('operator', 'item-1'),
      stepRunId('my-workflow', 0),
      rerouteRunId('my-workflow', 1),
    ];
    for (const key of built) expect(rejected({ type: 'doc-sync', payload: { idempotencyKey: key } }).code, key).toBe('reserved_field');
    // Only the service's shapes: the same words elsewhere in a key are the client's.
    for (const key of ['my-schedule:1', 'nightly:2024-01-01#a', 'step-1', 'build:step-one', 'Schedule:x']) {
      expect(accepts({ type: 'doc-sync', payload: { idempotencyKey: key } }), key).toBe(true);
    }
  });

  it('reports every reserved field at once, before schema problems', () => {
    const out = rejected({ type: 'agent-deploy', payload: { __a: 1, approved: true, agentName: 42 } });
    expect(out.code).toBe('reserved_field');
    expect(out.details.map((d) => d.path).sort()).toEqual(['/body/payload/__a', '/body/payload/approved']);
  });

  it('allows the same names nested below the top level', () => {
    expect(accepts({ type: 'agent-deploy', payload: { agentName: 'a', config: { approved: true } } })).toBe(true);
  });
});

describe('checkTaskRequest: payload schemas', () => {
  it('checks the idempotency key format', () => {
    for (const bad of ['', 'has space', 'tab\tkey', 'x'.repeat(201), 'ünicode']) {
      const out = rejected({ type: 'doc-sync', payload: { idempotencyKey: bad } });
      expect(out.code, bad).toBe('invalid_request');
      expect(out.details[0]!.path).toBe('/body/payload/idempotencyKey');
    }
    expect(accepts({ type: 'doc-sync', payload: { idempotencyKey: 'x'.repeat(200) } })).toBe(true);
    expect(accepts({ type: 'doc-sync', payload: { idempotencyKey: 'nightly:2024-01-01#a' } })).toBe(true);
  });

  it('checks requiresApproval is a boolean on any type', () => {
    const out = rejected({ type: 'system-monitor', payload: { requiresApproval: 'yes' } });
    expect(out.details).toEqual([{ path: '/body/payload/requiresApproval', message: 'must be boolean' }]);
  });

  it('keeps unknown fields of a known type', () => {
    const payload = { content: 'hello', format: 'bullets', audience: 'board', extra: { nested: [1, 2] } };
    expect(checkTaskRequest({ type: 'summarize-content', payload }).payload).toEqual(payload);
  });

  it('reports wrong field types with their payload paths', () => {
    const out = rejected({
      type: 'build-refactor',
      payload: { scope: 5, constraints: { maxFilesChanged: 'many', runTests: 'yes' } },
    });
    expect(out.code).toBe('invalid_request');
    expect(out.details).toEqual(
      expect.arrayContaining([
        { path: '/body/payload/scope', message: 'must be string' },
        { path: '/body/payload/constraints/maxFilesChanged', message: 'must be integer' },
        { path: '/body/payload/constraints/runTests', message: 'must be boolean' },
      ]),
    );
  });

  it('bounds build-refactor maxFilesChanged to 1..50', () => {
    const at = (n: number): TaskRequest => ({ type: 'build-refactor', payload: { scope: 'p', constraints: { maxFilesChanged: n } } });
    expect(accepts(at(1))).toBe(true);
    expect(accepts(at(50))).toBe(true);
    for (const n of [0, 51, 2.5]) {
      expect(rejected(at(n)).details[0]!.path, String(n)).toBe('/body/payload/constraints/maxFilesChanged');
    }
  });

  it('requires autonomous-work-cycle requestedOutcome and bounds maxSteps', () => {
    expect(rejected({ type: 'autonomous-work-cycle', payload: {} }).details).toEqual([
      { path: '/body/payload/requestedOutcome', message: 'is required' },
    ]);
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: '' } }).details[0]!.path).toBe(
      '/body/payload/requestedOutcome',
    );
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'x'.repeat(501) } }).code).toBe(
      'invalid_request',
    );
    expect(rejected({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'fix it', maxSteps: 26 } }).details).toEqual([
      { path: '/body/payload/maxSteps', message: expect.stringContaining('25') },
    ]);
    expect(accepts({ type: 'autonomous-work-cycle', payload: { requestedOutcome: 'fix it', maxSteps: 25 } })).toBe(true);
  });

  it('restricts enumerated fields to their values', () => {
    const out = rejected({ type: 'summarize-content', payload: { content: 'x', format: 'haiku' } });
    expect(out.details).toEqual([{ path: '/body/payload/format', message: 'must be one of: executive_summary, bullets' }]);
    expect(rejected({ type: 'qa-verification', payload: { target: 't', mode: 'yolo' } }).details[0]!.path).toBe('/body/payload/mode');
  });

  it('reports one detail for a value matching none of a union’s shapes', () => {
    const out = rejected({ type: 'data-extraction', payload: { source: { url: 'x' }, format: 'csv' } });
    expect(out.details).toEqual([{ path: '/body/payload/source', message: expect.stringContaining('accepted shape') }]);
  });

  it('checks explicit build-refactor change sets', () => {
    const ok = { scope: 'p', changes: [{ path: 'p/a.ts', search: 'a', replace: 'b' }, { path: 'p/b.ts', delete: true }] };
    expect(accepts({ type: 'build-refactor', payload: ok })).toBe(true);
    const bad = rejected({ type: 'build-refactor', payload: { scope: 'p', changes: [{ path: 'p/a.ts', delete: false }] } });
    expect(bad.details[0]!.path).toBe('/body/payload/changes/0');
  });

  it('checks agent-deploy names', () => {
    expect(rejected({ type: 'agent-deploy', payload: {} }).details).toEqual([{ path: '/body/payload/agentName', message: 'is required' }]);
    expect(rejected({ type: 'agent-deploy', payload: { agentName: '../etc' } }).details[0]!.path).toBe('/body/payload/agentName');
    expect(accepts({ type: 'agent-deploy', payload: { agentName: 'doc-specialist', tags: ['a'] } })).toBe(true);
  });

  it('validatePayload serves internal types too (for admission of service-made runs)', () => {
    expect(validatePayload('doc-change', { paths: ['a.md'] })).toEqual([]);
    expect(validatePayload('doc-change', {})).toEqual([{ path: '/body/payload/paths', message: 'is required' }]);
  });
});
