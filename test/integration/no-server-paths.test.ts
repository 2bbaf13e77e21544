import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bodyText, waitForTerminal } from '../support/http.js';
import { TEST_KEYS } from '../support/keys.js';
import { raisedLimitsForEveryBucket, serviceRouteList, type RouteEntry } from '../support/route-list.js';
import { startRuntimeService, type RuntimeService } from '../support/runtime-service.js';

/**
 * Results and responses name files relative to the workspace or the logs folder, never by the
 * server's absolute path: every GET of the route table, after runs that write files (a doc-sync
 * writing a knowledge pack, an agent-deploy), must not carry the service's base folder.
 */
describe('no response names a file by the server path', () => {
  let running: RuntimeService;
  let routes: RouteEntry[];
  const runIds: string[] = [];

  beforeAll(async () => {
    routes = (await serviceRouteList()).filter((route) => route.method === 'GET');
    running = await startRuntimeService({ rateLimits: raisedLimitsForEveryBucket(), logLevel: 'warn' });
    const docs = join(running.base, 'workspace', 'docs');
    mkdirSync(docs, { recursive: true });
    writeFileSync(join(docs, 'runbook.md'), '# Runbook\n\nRestart the service with care.\n');
    for (const [type, payload] of [
      ['doc-sync', { idempotencyKey: 'paths-doc-sync' }],
      ['summarize-content', { idempotencyKey: 'paths-summary', content: 'One sentence. Two sentences.' }],
    ] as const) {
      const res = await running.api.trigger(type, payload);
      runIds.push(res.body.runId as string);
    }
    for (const runId of runIds) await waitForTerminal(running.api, runId, 30_000);
  }, 120_000);
  afterAll(async () => {
    await running?.service.kill();
  });

  it('answers every GET route without the base folder of the service', async () => {
    const findings: string[] = [];
    for (const route of routes) {
      const params: Record<string, string> = { runId: runIds[0]!, agentId: 'doc-specialist' };
      const path = route.params.reduce((p, name) => p.replace(`:${name}`, encodeURIComponent(params[name] ?? `x-${name}`)), route.path);
      const query = route.path === '/api/memory/recall' ? '?agentId=doc-specialist' : '';
      const res = await fetch(`${running.service.url}${path}${query}`, { headers: { authorization: `Bearer ${TEST_KEYS.admin}` } });
      const body = await bodyText(res);
      if (body.includes(running.base)) {
        const at = body.indexOf(running.base);
        findings.push(`${route.path} (${res.status}): …${body.slice(Math.max(0, at - 60), at + 80)}…`);
      }
    }
    expect(findings).toEqual([]);
  }, 120_000);
});
