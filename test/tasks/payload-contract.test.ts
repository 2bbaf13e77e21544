import { describe, expect, it } from 'vitest';
import { policyTaskPayload } from '../../src/incidents/policy-defaults.js';
import { TASK_CATALOG } from '../../src/runtime/catalog.js';
import { payloadProblems } from '../../src/lanes/payload-check.js';
import { PAYLOAD_SCHEMAS } from '../../src/lanes/payload-schemas.js';

/** Whether a JSON schema declares a default anywhere inside it. */
function declaresDefault(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(declaresDefault);
  if (schema === null || typeof schema !== 'object') return false;
  return Object.hasOwn(schema, 'default') || Object.values(schema).some(declaresDefault);
}

describe('the payload contract shared by admission and workers', () => {
  it('declares no defaults, so the payload a worker checks is the one admission stored', () => {
    for (const [type, schema] of Object.entries(PAYLOAD_SCHEMAS)) expect(declaresDefault(schema), type).toBe(false);
  });

  it('gives every public type with fields an example that passes its own schema', () => {
    for (const entry of TASK_CATALOG.filter((e) => !e.internalOnly)) {
      const schema = PAYLOAD_SCHEMAS[entry.type as keyof typeof PAYLOAD_SCHEMAS] as { properties: Record<string, unknown>; examples?: unknown[] };
      const ownFields = Object.keys(schema.properties).filter((name) => name !== 'requiresApproval' && name !== 'idempotencyKey');
      if (ownFields.length === 0) continue;
      expect(schema.examples, entry.type).toHaveLength(1);
      expect(payloadProblems(entry.type, schema.examples![0]), entry.type).toEqual([]);
      // The console sets these through its own controls; an example never carries them.
      expect(schema.examples![0], entry.type).not.toHaveProperty('idempotencyKey');
      expect(schema.examples![0], entry.type).not.toHaveProperty('requiresApproval');
    }
  });

  it('accepts the payloads incident policies start, service links included', () => {
    const incident = { incidentId: 'inc-1', title: 'Queue backlog growing', scope: 'projects/app' };
    for (const type of ['drift-repair', 'qa-verification', 'system-monitor']) {
      expect(payloadProblems(type, policyTaskPayload(type, incident)), type).toEqual([]);
      expect(payloadProblems(type, policyTaskPayload(type, { ...incident, scope: null })), type).toEqual([]);
    }
  });

  it('accepts the service fields a worker receives beside the client payload', () => {
    const serviceFields = { __controlPlane: { generatedAt: 'now' }, __incidentId: 'inc-1', approvedFromTaskId: 'task-1' };
    expect(payloadProblems('release-readiness', { scope: 'projects/app', ...serviceFields })).toEqual([]);
    expect(payloadProblems('drift-repair', { requestedBy: 'doc-change', paths: ['a.md'], __knowledge: { docsPath: '/d' } })).toEqual([]);
  });
});
