import { describe, expect, it } from 'vitest';
import { JSON_BOUNDS } from '../../src/domain/json-bounds.js';
import { signAlertDelivery } from '../../src/incidents/alert-signature.js';
import { composedServiceForSuite } from '../support/composed-service.js';
import { readJson } from '../support/http.js';
import { bearer, TEST_KEYS, TEST_WEBHOOK_SECRET } from '../support/keys.js';

/** JSON text of arrays nested `levels` deep around a 1: `[[1]]` is 2 levels. */
const nested = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
/** JSON text of a list of `count` zeros. */
const zeros = (count: number) => `[${Array.from({ length: count }, () => '0').join(',')}]`;

/** A body of the route's own shape with `inner` in a field of it (one level below the body). */
interface BodyRoute {
  name: string;
  method: 'POST' | 'PATCH';
  path: string;
  /** The least role that may call it; `signed` for the webhook. */
  access: 'operator' | 'signed';
  body: (inner: string) => string;
}

const ROUTES: BodyRoute[] = [
  { name: 'trigger', method: 'POST', path: '/api/tasks/trigger', access: 'operator', body: (inner) => `{"type":"summarize-content","payload":${inner}}` },
  { name: 'rerun', method: 'POST', path: '/api/tasks/runs/bounds-run/rerun', access: 'operator', body: (inner) => `{"payload":${inner}}` },
  { name: 'schedule create', method: 'POST', path: '/api/schedules', access: 'operator', body: (inner) => `{"cron":"0 2 * * *","type":"summarize-content","payload":${inner}}` },
  { name: 'schedule change', method: 'PATCH', path: '/api/schedules/bounds-schedule', access: 'operator', body: (inner) => `{"payload":${inner}}` },
  { name: 'approval decision', method: 'POST', path: '/api/approvals/bounds-task/decision', access: 'operator', body: (inner) => `{"decision":"approved","note":${inner}}` },
  { name: 'incident remediate', method: 'POST', path: '/api/incidents/bounds-incident/remediate', access: 'operator', body: (inner) => `{"taskType":"system-monitor","payload":${inner}}` },
  { name: 'incident acknowledge', method: 'POST', path: '/api/incidents/bounds-incident/acknowledge', access: 'operator', body: (inner) => `{"note":${inner}}` },
  { name: 'knowledge query', method: 'POST', path: '/api/knowledge/query', access: 'operator', body: (inner) => `{"query":"queues","filter":${inner}}` },
  { name: 'business cycle trigger', method: 'POST', path: '/api/business/cycle/trigger', access: 'operator', body: (inner) => `{"reason":${inner}}` },
  { name: 'business scheduler', method: 'POST', path: '/api/business/scheduler', access: 'operator', body: (inner) => `{"action":${inner}}` },
  { name: 'cancel', method: 'POST', path: '/api/tasks/runs/bounds-run/cancel', access: 'operator', body: (inner) => `{"reason":${inner}}` },
  { name: 'alert webhook', method: 'POST', path: '/webhook/alerts', access: 'signed', body: (inner) => `{"version":"4","status":"firing","alerts":${inner}}` },
];

function signedHeaders(body: string): Record<string, string> {
  const timestamp = String(Math.floor(Date.now() / 1000));
  return { 'x-orchestrator-timestamp': timestamp, 'x-orchestrator-signature': signAlertDelivery(TEST_WEBHOOK_SECRET, timestamp, body) };
}

describe('every JSON body is held to the depth and size bounds, after the key or the signature', () => {
  const service = composedServiceForSuite();

  async function send(route: BodyRoute, body: string, credential: 'valid' | 'none' | 'viewer' = 'valid') {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (route.access === 'signed') Object.assign(headers, credential === 'valid' ? signedHeaders(body) : {});
    else if (credential !== 'none') Object.assign(headers, bearer(credential === 'viewer' ? TEST_KEYS.viewer : TEST_KEYS.operator));
    const res = await fetch(`${service().url}${route.path}`, { method: route.method, headers, body });
    return { status: res.status, error: ((await readJson(res)) as { error?: { code: string; message: string; details?: unknown } }).error };
  }

  describe.each(ROUTES)('$name', (route) => {
    it('refuses a body nested past the depth bound with 400 invalid_request naming it, also thousands of levels deep', async () => {
      for (const levels of [JSON_BOUNDS.maxDepth, 10_000]) {
        // The body itself is one level around the field.
        const answer = await send(route, route.body(nested(levels)));
        expect(answer.status, `${levels} levels`).toBe(400);
        expect(answer.error?.code).toBe('invalid_request');
        expect(answer.error?.message).toBe('The request body nests deeper than 64 levels of arrays and objects');
        expect(answer.error?.details).toEqual([{ path: '/body', message: answer.error?.message }]);
      }
    });

    it('refuses a body of more values than the bound with 400 invalid_request naming it', async () => {
      const answer = await send(route, route.body(zeros(JSON_BOUNDS.maxNodes)));
      expect(answer.status).toBe(400);
      expect(answer.error?.code).toBe('invalid_request');
      expect(answer.error?.message).toBe('The request body holds more than 100000 values');
    });

    it('still answers 401 (and 403 below the role) first, whatever the body', async () => {
      const body = route.body(nested(10_000));
      const unauthenticated = await send(route, body, 'none');
      expect(unauthenticated.status).toBe(401);
      expect(unauthenticated.error?.code).toBe(route.access === 'signed' ? 'invalid_signature' : 'unauthorized');
      if (route.access === 'operator') expect((await send(route, body, 'viewer')).status).toBe(403);
    });
  });

  it('takes a payload right at the bound: a trigger body 64 levels deep is admitted', async () => {
    const payload = `{"content":"bounded","idempotencyKey":"bounds-at-limit","nested":${nested(JSON_BOUNDS.maxDepth - 2)}}`;
    const answer = await fetch(`${service().url}/api/tasks/trigger`, {
      method: 'POST',
      headers: { ...bearer(TEST_KEYS.operator), 'content-type': 'application/json' },
      body: `{"type":"summarize-content","payload":${payload}}`,
    });
    expect(answer.status).toBe(202);
    expect((await service().store.getRun('bounds-at-limit'))?.payload.content).toBe('bounded');
  });
});
