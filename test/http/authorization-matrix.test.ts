import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../src/config/types.js';
import { bodyText, waitFor } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { raisedLimitsForEveryBucket, serviceRouteList, type RouteEntry } from '../support/route-list.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * Each credential a caller can present, the role it really carries (null: none) and, for a scoped
 * token, the routes its scope lets it read (every other route below its role or outside its scope is 403).
 */
interface Credential {
  name: string;
  header: string | null;
  role: Role | null;
  scopedTo?: string[];
}
const CREDENTIALS: Credential[] = [
  { name: 'no token', header: null, role: null },
  { name: 'bad token', header: 'Bearer not-a-key-of-this-service', role: null },
  { name: 'expired', header: `Bearer ${TEST_KEYS.expired}`, role: null },
  { name: 'inactive', header: `Bearer ${TEST_KEYS.inactive}`, role: null },
  { name: 'viewer', header: `Bearer ${TEST_KEYS.viewer}`, role: 'viewer' },
  { name: 'operator', header: `Bearer ${TEST_KEYS.operator}`, role: 'operator' },
  { name: 'admin', header: `Bearer ${TEST_KEYS.admin}`, role: 'admin' },
];

const RANK: Record<Role, number> = { viewer: 0, operator: 1, admin: 2 };

/**
 * Scoped tokens issued by the operator key: one for the matrix's run id, one for a tag, one for every viewer
 * read, one revoked and one altered (the last two refused like an unknown key).
 */
async function tokenCredentials(url: string): Promise<Credential[]> {
  const issue = async (scope: Record<string, unknown>) => {
    const res = await fetch(`${url}/api/tokens`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TEST_KEYS.operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ scope }),
    });
    if (res.status !== 201) throw new Error(`token not issued: ${res.status}`);
    return (await res.json()) as { token: string; tokenId: string };
  };
  const runToken = await issue({ kind: 'run', runId: 'matrix-runId' });
  const readToken = await issue({ kind: 'read' });
  const tagToken = await issue({ kind: 'tag', tag: 'matrix-tag' });
  const revoked = await issue({ kind: 'read' });
  await fetch(`${url}/api/tokens/${revoked.tokenId}`, { method: 'DELETE', headers: { authorization: `Bearer ${TEST_KEYS.operator}` } });
  const altered = `${readToken.token.slice(0, -1)}${readToken.token.endsWith('A') ? 'B' : 'A'}`;
  return [
    {
      name: 'run-scoped token',
      header: `Bearer ${runToken.token}`,
      role: 'viewer',
      scopedTo: ['GET /api/auth/me', 'GET /api/tasks/runs/:runId', 'GET /api/tasks/runs/:runId/events'],
    },
    // No run carries its tag and the matrix's listing names none: it reads who it is, nothing else.
    { name: 'tag-scoped token', header: `Bearer ${tagToken.token}`, role: 'viewer', scopedTo: ['GET /api/auth/me'] },
    { name: 'read token', header: `Bearer ${readToken.token}`, role: 'viewer' },
    { name: 'revoked token', header: `Bearer ${revoked.token}`, role: null },
    { name: 'altered token', header: `Bearer ${altered}`, role: null },
  ];
}

/** The route's path with every parameter filled (`:runId` -> `matrix-runId`). */
function concretePath(route: RouteEntry): string {
  return route.params.reduce((path, name) => path.replace(`:${name}`, `matrix-${name}`), route.path);
}

/**
 * Every route of the table (built like test/http/route-table.test.ts, so a route added later is
 * in the matrix without touching this file) x every credential, against the built service.
 */
describe('authorization matrix: every route x every credential', () => {
  let routes: RouteEntry[];
  let running: RuntimeService;
  beforeAll(async () => {
    routes = await serviceRouteList();
    running = await startRuntimeService({ rateLimits: raisedLimitsForEveryBucket(), logLevel: 'warn' });
    CREDENTIALS.push(...(await tokenCredentials(running.service.url)));
  }, 120_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  it('answers no 2xx below the route role, 401 without a valid key, 403 for a lower role, and never a 5xx', async () => {
    const findings: string[] = [];
    let cells = 0;
    for (const route of routes) {
      for (const credential of CREDENTIALS) {
        const headers: Record<string, string> = {};
        if (credential.header) headers.authorization = credential.header;
        const hasBody = route.method === 'POST' || route.method === 'PATCH';
        if (hasBody) headers['content-type'] = 'application/json';
        const res = await fetch(`${running.service.url}${concretePath(route)}`, {
          method: route.method,
          headers,
          body: hasBody ? '{}' : undefined,
        });
        await bodyText(res, 0);
        cells += 1;
        const cell = `${route.method} ${route.path} as ${credential.name}: ${res.status}`;
        if (res.status >= 500) findings.push(`${cell} (5xx)`);
        const ok = res.status >= 200 && res.status < 300;
        if (route.access === 'public') continue;
        if (route.access === 'signed') {
          // The webhook takes no bearer key: unsigned, every credential is refused.
          if (ok) findings.push(`${cell} (unsigned webhook accepted)`);
          continue;
        }
        if (credential.role === null) {
          if (res.status !== 401) findings.push(`${cell} (expected 401)`);
        } else if (RANK[credential.role] < RANK[route.access]) {
          if (res.status !== 403) findings.push(`${cell} (expected 403 below ${route.access})`);
        } else if (credential.scopedTo && !credential.scopedTo.includes(`${route.method} ${route.path}`)) {
          if (res.status !== 403) findings.push(`${cell} (expected 403 outside the token's scope)`);
        }
      }
    }
    expect(findings).toEqual([]);
    expect(cells).toBe(routes.length * CREDENTIALS.length);
    // The matrix covers the table, not a sample of it.
    expect(routes.filter((r) => r.access === 'operator').length).toBeGreaterThan(0);
    expect(routes.filter((r) => r.access === 'viewer').length).toBeGreaterThan(0);
  }, 120_000);
});

/**
 * The schedule and rerun paths with several operators, against the built service, under
 * `allowSelfApproval: false`: whoever shaped the work (a schedule's creator and changer, a rerun's
 * caller and the original's requester) is refused the decision; another operator may take it.
 */
describe('authorization matrix: schedule and rerun paths with two operators and a third', () => {
  const KEYS = {
    a: 'matrix-operator-a-0001',
    b: 'matrix-operator-b-0001',
    c: 'matrix-operator-c-0001',
    viewer: TEST_KEYS.viewer,
  } as const;
  type Who = keyof typeof KEYS;
  let running: RuntimeService;
  beforeAll(async () => {
    const rotation = JSON.stringify([
      { key: KEYS.a, label: 'ops-a', role: 'operator' },
      { key: KEYS.b, label: 'ops-b', role: 'operator' },
      { key: KEYS.c, label: 'ops-c', role: 'operator' },
      { key: KEYS.viewer, label: 'viewer-bot', role: 'viewer' },
    ]);
    running = await startRuntimeService(
      { rateLimits: raisedLimitsForEveryBucket(), logLevel: 'warn', approvalPolicy: { default: { allowSelfApproval: false } } },
      undefined,
      { API_KEY_ROTATION: rotation },
    );
  }, 120_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  const findings: string[] = [];
  /** One cell: `who` calls `method path` and must get `expected`; a mismatch is a finding. Answers the body. */
  async function cell(who: Who, method: 'GET' | 'POST' | 'PATCH', path: string, body: unknown, expected: number): Promise<any> {
    const res = await fetch(`${running.service.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${KEYS[who]}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await bodyText(res, 0);
    if (res.status !== expected) findings.push(`${method} ${path} as ${who}: ${res.status}, expected ${expected} (${text.slice(0, 300)})`);
    return text ? JSON.parse(text) : null;
  }
  const decide = (who: Who, taskId: string, expected: number) => cell(who, 'POST', `/api/approvals/${taskId}/decision`, { decision: 'approved' }, expected);

  it('a schedule A created and B changed fires requested by both: B and A are refused its approval, C decides it', async () => {
    const schedule = { id: 'matrix-gated', cron: '* * * * * *', type: 'summarize-content', payload: { content: 'by A', requiresApproval: true }, enabled: false };
    await cell('viewer', 'POST', '/api/schedules', schedule, 403);
    expect(await cell('a', 'POST', '/api/schedules', schedule, 201)).toMatchObject({ requesters: ['ops-a'] });
    await cell('viewer', 'PATCH', '/api/schedules/matrix-gated', { payload: { content: 'by viewer' } }, 403);
    const changed = await cell('b', 'PATCH', '/api/schedules/matrix-gated', { payload: { content: 'by B', requiresApproval: true } }, 200);
    expect(changed).toMatchObject({ createdBy: 'ops-a', updatedBy: 'ops-b', requesters: ['ops-a', 'ops-b'] });
    await cell('a', 'PATCH', '/api/schedules/matrix-gated', { enabled: true }, 200);
    const fired = await waitFor(async () => {
      const view = await cell('viewer', 'GET', '/api/schedules/matrix-gated', undefined, 200);
      return typeof view?.lastRunId === 'string' ? (view.lastRunId as string) : undefined;
    }, 10_000, 'the first firing of matrix-gated');
    await cell('a', 'PATCH', '/api/schedules/matrix-gated', { enabled: false }, 200);

    const held = await cell('viewer', 'GET', `/api/tasks/runs/${encodeURIComponent(fired)}`, undefined, 200);
    expect(held).toMatchObject({ source: 'schedule', requestedBy: 'ops-a', requesters: ['ops-a', 'ops-b'], payload: { content: 'by B' } });
    expect(await cell('c', 'GET', `/api/approvals/${held.taskId}`, undefined, 200)).toMatchObject({ requestedBy: 'ops-a', requesters: ['ops-a', 'ops-b'] });
    await decide('viewer', held.taskId, 403);
    await decide('b', held.taskId, 403);
    await decide('a', held.taskId, 403);
    expect(await decide('c', held.taskId, 200)).toMatchObject({ approval: { status: 'approved', decidedBy: 'ops-c' } });
    expect(findings).toEqual([]);
  }, 60_000);

  it('a rerun by B of A\'s run is requested by both: neither may approve it, C may; A\'s own run B may approve', async () => {
    const original = await cell('a', 'POST', '/api/tasks/trigger', { type: 'summarize-content', payload: { content: 'by A', requiresApproval: true, idempotencyKey: 'matrix-original' } }, 202);
    await cell('viewer', 'POST', '/api/tasks/runs/matrix-original/rerun', {}, 403);
    const rerun = await cell('b', 'POST', '/api/tasks/runs/matrix-original/rerun', { idempotencyKey: 'matrix-rerun' }, 202);
    const view = await cell('viewer', 'GET', '/api/tasks/runs/matrix-rerun', undefined, 200);
    expect(view).toMatchObject({ requestedBy: 'ops-b', requesters: ['ops-b', 'ops-a'], approval: { status: 'pending', requesters: ['ops-b', 'ops-a'] } });
    await decide('a', rerun.taskId, 403);
    await decide('b', rerun.taskId, 403);
    await decide('c', rerun.taskId, 200);
    // The original is A's alone: B did not shape it.
    await decide('a', original.taskId, 403);
    await decide('b', original.taskId, 200);
    expect(findings).toEqual([]);
  }, 60_000);
});
