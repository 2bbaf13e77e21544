import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteSpec } from '../../src/http/route-spec.js';
import { startHarness, type Harness } from '../support/http-harness.js';
import { readJson } from '../support/http.js';

type Operation = {
  operationId: string;
  security: unknown[];
  'x-svc-access': Record<string, unknown>;
  parameters?: Array<{ name: string; in: string; required: boolean }>;
  requestBody?: unknown;
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown> }>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: Record<string, Record<string, unknown>> };

let h: Harness;
let doc: Doc;
beforeAll(async () => {
  h = await startHarness();
  const res = await fetch(`${h.url}/api/openapi.json`);
  expect(res.status).toBe(200);
  doc = (await readJson(res)) as Doc;
});
afterAll(async () => {
  await h.close();
});

const operationOf = (route: RouteSpec) => doc.paths[route.path.replace(/:(\w+)/g, '{$1}')]?.[route.method.toLowerCase()];

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('documents every registered route, itself included, and nothing else', () => {
    const documented = Object.entries(doc.paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => `${method.toUpperCase()} ${path} ${op.operationId}`),
    );
    const registered = h.routes.map((r) => `${r.method} ${r.path.replace(/:(\w+)/g, '{$1}')} ${r.operationId}`);
    expect(documented.sort()).toEqual(registered.sort());
    expect(registered).toContain('GET /api/openapi.json getOpenApiDocument');
  });

  it('agrees with the server about what is served: every documented operation answers something other than 404-unmatched', async () => {
    for (const route of h.routes) {
      const path = route.path.replace(/:(\w+)/g, 'x');
      const res = await fetch(`${h.url}${path}`, { method: route.method });
      const body = await res.text();
      expect(body.includes('No route matches'), `${route.method} ${path}`).toBe(false);
    }
  });

  it('marks protected operations with bearerAuth and x-svc-access taken from the route table', () => {
    expect(doc.components.securitySchemes!.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const route of h.routes) {
      const op = operationOf(route)!;
      if (route.access.kind === 'protected') {
        expect(op.security).toEqual([{ bearerAuth: [] }]);
        expect(op['x-svc-access']).toEqual({
          role: route.access.role,
          limiterBucket: route.access.bucket,
          ...(route.access.companionView ? { companionView: true } : {}),
        });
        expect(op.responses['401']?.$ref).toBe('#/components/responses/Unauthorized');
        expect(op.responses['403']?.$ref).toBe('#/components/responses/Forbidden');
        const success = Object.entries(op.responses).find(([code]) => Number(code) < 300)![1];
        expect(Object.keys(success.headers!)).toContain('X-API-Key-Expires');
      } else if (route.access.kind === 'signed') {
        expect(op.security).toEqual([{ webhookSignature: [] }]);
        expect(op['x-svc-access']).toEqual({ role: 'signed', limiterBucket: 'abuse-guard' });
        expect(op.parameters!.map((p) => p.name)).toEqual(['X-Orchestrator-Signature', 'X-Orchestrator-Timestamp']);
        expect(op.responses['401']?.$ref).toBe('#/components/responses/InvalidSignature');
      } else {
        expect(op.security).toEqual([]);
        expect(op['x-svc-access']).toEqual({ role: 'public', limiterBucket: route.access.bucket });
        expect(op.responses['401']).toBeUndefined();
      }
      expect(op.responses['429']?.$ref).toBe('#/components/responses/RateLimited');
      expect(op.responses['500']?.$ref).toBe('#/components/responses/InternalError');
    }
  });

  it('describes inputs: path and query parameters, bodies, and the errors they can cause', () => {
    const item = doc.paths['/test/items/{itemId}']!.get!;
    expect(item.parameters).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ name: 'itemId', in: 'path', required: true }),
        expect.objectContaining({ name: 'limit', in: 'query', required: false }),
      ]),
    );
    expect(item.responses['400']?.$ref).toBe('#/components/responses/BadRequest');
    expect(item.responses['404']?.$ref).toBe('#/components/responses/NotFound');
    const create = doc.paths['/test/notes']!.post!;
    expect(create.requestBody).toMatchObject({ required: true, content: { 'application/json': { schema: { type: 'object' } } } });
    expect(create.responses['201']).toBeDefined();
    expect(create.responses['413']?.$ref).toBe('#/components/responses/PayloadTooLarge');
    expect(doc.paths['/health']!.get!.responses['400']).toBeUndefined();
  });

  it('documents the response headers: request id, rate limits, Retry-After on 429, cache headers on cached reads', () => {
    const responses = doc.components.responses as Record<string, { headers: Record<string, unknown>; content: unknown }>;
    expect(Object.keys(responses.RateLimited!.headers)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'Retry-After', 'ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']),
    );
    expect(responses.BadRequest!.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/ErrorBody' } } });
    const cached = doc.paths['/test/notes']!.get!.responses['200']!.headers!;
    expect(Object.keys(cached)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'ratelimit-limit', 'X-Svc-Cache', 'X-Svc-Cache-Store', 'Cache-Control']),
    );
    const uncached = doc.paths['/api/auth/me']!.get!.responses['200']!.headers!;
    expect(Object.keys(uncached)).not.toContain('X-Svc-Cache');
  });
});
