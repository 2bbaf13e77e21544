import { describe, expect, it } from 'vitest';
import { ApiError, apiErrorFrom, describeError, isSessionExpired } from '../../console/src/api/errors.js';
import { jittered, retryDelayMs, shouldRetry } from '../../console/src/api/retry.js';
import { can, hasRole, isRole } from '../../console/src/auth/roles.js';
import { segment, toQueryString } from '../../console/src/lib/query-string.js';
import { remediationTaskTypes, type CatalogEntry } from '../../console/src/lib/catalog.js';
import { buildTriggerBody, fieldsToFill, payloadTemplate, type PayloadSchema } from '../../console/src/lib/trigger-body.js';
import { REMEDIATION_TASK_TYPES } from '../../src/incidents/manual-remediation.js';
import { publicCatalog } from '../../src/runtime/catalog.js';
import { getPayloadSchema } from '../../src/lanes/payload-schemas.js';
import { validatePayload } from '../../src/runtime/payload-validation.js';

describe('apiErrorFrom', () => {
  it('reads the service envelope, keeping field details of a validation failure', () => {
    const err = apiErrorFrom(400, {
      error: {
        code: 'invalid_request',
        message: 'The request body is invalid',
        requestId: 'req-42',
        details: [{ path: '/body/payload/content', message: 'must NOT have fewer than 1 characters' }],
      },
    });
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ status: 400, code: 'invalid_request', requestId: 'req-42', retryAfterSeconds: null });
    expect(err.details).toEqual([{ path: '/body/payload/content', message: 'must NOT have fewer than 1 characters' }]);
    expect(describeError(err)).toBe('HTTP 400 invalid_request: The request body is invalid');
  });

  it('keeps Retry-After of a 429 and drops details that are not field problems', () => {
    const err = apiErrorFrom(
      429,
      { error: { code: 'rate_limited', message: 'Rate limit exceeded', requestId: 'r1', details: { bucket: 'operator-write', limit: 30 } } },
      '12',
    );
    expect(err.details).toEqual([]);
    expect(err.retryAfterSeconds).toBe(12);
    expect(describeError(err)).toBe('HTTP 429 rate_limited: Rate limit exceeded Retry after 12 s.');
  });

  it('falls back to a code by status when the body is not the envelope (a proxy page, an empty 502)', () => {
    expect(apiErrorFrom(503, null)).toMatchObject({ code: 'unavailable', message: 'Request failed with HTTP 503', requestId: null });
    expect(apiErrorFrom(502, '<html>bad gateway</html>').code).toBe('internal_error');
    expect(apiErrorFrom(418, {}).code).toBe('http_error');
    expect(apiErrorFrom(401, { error: 'nope' }).code).toBe('unauthorized');
  });

  it('treats only 401 unauthorized as an ended session (403 is a role answer, invalid_signature is not a session)', () => {
    expect(isSessionExpired(apiErrorFrom(401, { error: { code: 'unauthorized', message: 'x', requestId: 'r' } }))).toBe(true);
    expect(isSessionExpired(apiErrorFrom(403, { error: { code: 'forbidden', message: 'x', requestId: 'r' } }))).toBe(false);
    expect(isSessionExpired(apiErrorFrom(401, { error: { code: 'invalid_signature', message: 'x', requestId: 'r' } }))).toBe(false);
    expect(isSessionExpired(new Error('network'))).toBe(false);
  });
});

describe('role gates', () => {
  it('orders viewer < operator < admin', () => {
    expect(hasRole('viewer', 'viewer')).toBe(true);
    expect(hasRole('viewer', 'operator')).toBe(false);
    expect(hasRole('operator', 'viewer')).toBe(true);
    expect(hasRole('admin', 'operator')).toBe(true);
    expect(hasRole(null, 'viewer')).toBe(false);
  });

  it('lets operators and admins write, never viewers', () => {
    for (const action of ['triggerTask', 'readApprovals', 'decideApproval', 'acknowledgeIncident', 'setIncidentOwner', 'remediateIncident'] as const) {
      expect(can('viewer', action), action).toBe(false);
      expect(can('operator', action), action).toBe(true);
      expect(can('admin', action), action).toBe(true);
      expect(can(undefined, action), action).toBe(false);
    }
  });

  it('recognizes only the three roles', () => {
    expect(isRole('operator')).toBe(true);
    expect(isRole('root')).toBe(false);
    expect(isRole(undefined)).toBe(false);
  });
});

describe('query strings', () => {
  it('keeps only set filters and encodes ids as one path segment', () => {
    expect(toQueryString({ status: 'failed', type: '', includeInternal: null, limit: 20, offset: 0 })).toBe('?status=failed&limit=20&offset=0');
    expect(toQueryString({ a: undefined, b: false })).toBe('');
    expect(segment('approval-replay:1b2c/x')).toBe('approval-replay%3A1b2c%2Fx');
  });
});

describe('trigger form', () => {
  const summarizeSchema = {
    type: 'object',
    properties: {
      requiresApproval: { type: 'boolean' },
      idempotencyKey: { type: 'string' },
      content: { type: 'string', description: 'The text to summarize.' },
      format: { type: 'string', enum: ['executive_summary', 'bullets'] },
      maxSteps: { type: 'integer', default: 8 },
    },
    required: ['content', 'maxSteps', 'idempotencyKey'],
  };

  it('starts the payload from the required fields, leaving form-controlled fields out', () => {
    expect(JSON.parse(payloadTemplate(summarizeSchema))).toEqual({ content: '', maxSteps: 8 });
    expect(payloadTemplate(null)).toBe('{}');
  });

  it('starts from the schema\'s example when it has one, leaving form-controlled fields out', () => {
    const schema: PayloadSchema = { ...summarizeSchema, examples: [{ content: 'Deploy notes.', format: 'bullets', idempotencyKey: 'x' }] };
    expect(JSON.parse(payloadTemplate(schema))).toEqual({ content: 'Deploy notes.', format: 'bullets' });
  });

  it('offers, for every type of the published catalog, a starting payload the service accepts once its workspace paths are named', () => {
    for (const entry of publicCatalog()) {
      // The catalog route publishes the schema as JSON; the form reads it from there.
      const published = JSON.parse(JSON.stringify(getPayloadSchema(entry.type))) as PayloadSchema;
      const template = JSON.parse(payloadTemplate(published)) as Record<string, unknown>;
      // The only fields the service refuses are the empty path fields the operator fills in.
      const toFill = fieldsToFill(published).map((name) => `/body/payload/${name}`);
      const refused = validatePayload(entry.type, template).map((d) => d.path);
      expect(refused.filter((path) => !toFill.includes(path)), entry.type).toEqual([]);
      for (const name of fieldsToFill(published)) if (name in template) template[name] = 'projects/sample-app';
      expect(validatePayload(entry.type, template), entry.type).toEqual([]);
    }
  });

  it('puts the idempotency key and the approval hold into the payload', () => {
    const built = buildTriggerBody({ type: 'summarize-content', payloadText: '{"content":"Quarterly notes"}', idempotencyKey: ' q3-notes ', holdForApproval: true });
    expect(built).toEqual({
      ok: true,
      body: { type: 'summarize-content', payload: { content: 'Quarterly notes', idempotencyKey: 'q3-notes', requiresApproval: true } },
    });
    expect(buildTriggerBody({ type: 'heartbeat', payloadText: '', idempotencyKey: '', holdForApproval: false })).toEqual({
      ok: true,
      body: { type: 'heartbeat', payload: {} },
    });
  });

  it('refuses what the service would refuse before sending it', () => {
    const base = { type: 'summarize-content', idempotencyKey: '', holdForApproval: false };
    expect(buildTriggerBody({ ...base, payloadText: '{"content":' })).toMatchObject({ ok: false, error: expect.stringMatching(/not valid JSON/) });
    expect(buildTriggerBody({ ...base, payloadText: '[1,2]' })).toEqual({ ok: false, error: 'Payload must be a JSON object.' });
    expect(buildTriggerBody({ ...base, payloadText: '{}', idempotencyKey: 'two words' })).toMatchObject({ ok: false });
    expect(buildTriggerBody({ ...base, type: ' ', payloadText: '{}' })).toEqual({ ok: false, error: 'Choose a task type.' });
  });
});

describe('retry policy', () => {
  const limited = apiErrorFrom(429, { error: { code: 'rate_limited', message: 'slow down', requestId: 'r' } }, '7');
  const refused = apiErrorFrom(403, { error: { code: 'forbidden', message: 'role', requestId: 'r' } });
  const broken = apiErrorFrom(502, null);

  it('treats 429 as flow control, retries a 5xx or network failure once, never another 4xx', () => {
    expect([0, 1, 2, 3].map((n) => shouldRetry(n, limited))).toEqual([true, true, true, false]);
    expect([0, 1].map((n) => shouldRetry(n, broken))).toEqual([true, false]);
    expect(shouldRetry(0, new TypeError('Failed to fetch'))).toBe(true);
    expect(shouldRetry(0, refused)).toBe(false);
  });

  it('waits for Retry-After before trying a 429 again, with jitter on top', () => {
    expect(retryDelayMs(1, limited, () => 0)).toBe(7000);
    expect(retryDelayMs(1, limited, () => 0.999)).toBe(7499);
    const noHeader = apiErrorFrom(429, null);
    expect(retryDelayMs(0, noHeader, () => 0)).toBe(1000);
    expect(retryDelayMs(0, broken, () => 0)).toBe(1000);
    expect(retryDelayMs(5, broken, () => 0)).toBe(8000);
  });

  it('spreads polling by up to a fifth of the interval', () => {
    expect(jittered(10_000, () => 0)).toBe(10_000);
    expect(jittered(10_000, () => 0.5)).toBe(11_000);
  });
});

describe('remediation task types', () => {
  it('are the catalog entries marked remediation, the same the incident route accepts', () => {
    const published = JSON.parse(JSON.stringify(publicCatalog())) as CatalogEntry[];
    expect(remediationTaskTypes(published)).toEqual([...REMEDIATION_TASK_TYPES]);
    expect([...remediationTaskTypes(published)].sort()).toEqual(['build-refactor', 'drift-repair', 'qa-verification', 'system-monitor']);
  });
});
