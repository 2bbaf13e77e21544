import Type from 'typebox';
import type { CacheInvalidator } from '../../src/domain/cache-invalidation.js';
import { DomainError } from '../../src/domain/errors.js';
import type { RouteContext, RouteSpec } from '../../src/http/route-spec.js';

/** The cache tag the synthetic note writer bumps and the synthetic note reader carries. */
export const NOTES_TAG = 'test-notes';

const NoteBody = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 2000 }),
    priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 5 })),
  },
  { additionalProperties: false },
);

const ItemQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 10 })),
    verbose: Type.Optional(Type.Boolean()),
    mode: Type.Optional(Type.Union([Type.Literal('short'), Type.Literal('long')])),
  },
  { additionalProperties: false },
);

/**
 * Routes that exist only in tests, to exercise the envelope on shapes the real families have:
 * an operator write that invalidates a cached viewer read, an admin export, input validation,
 * a handler failing with a plain Error or with a coded failure of the service's side, and a
 * cached public read.
 */
export function syntheticRoutes(invalidator: CacheInvalidator): RouteSpec[] {
  const notes: string[] = [];
  return [
    {
      method: 'POST',
      path: '/test/notes',
      operationId: 'testCreateNote',
      summary: 'Adds a note (invalidates the notes read)',
      tags: ['test'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      schema: { body: NoteBody, response: { 201: Type.Object({ count: Type.Integer() }) } },
      handler: async (ctx: RouteContext<unknown, unknown, { text: string }>) => {
        notes.push(ctx.body.text);
        await invalidator.invalidate([NOTES_TAG]);
        return { statusCode: 201, body: { count: notes.length } };
      },
    },
    {
      method: 'GET',
      path: '/test/notes',
      operationId: 'testListNotes',
      summary: 'Lists notes (cached, tag test-notes)',
      tags: ['test'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      cache: { tags: [NOTES_TAG] },
      schema: { response: { 200: Type.Object({ count: Type.Integer(), notes: Type.Array(Type.String()) }) } },
      handler: async () => ({ body: { count: notes.length, notes: [...notes] } }),
    },
    {
      method: 'GET',
      path: '/test/export',
      operationId: 'testExport',
      summary: 'An admin export',
      tags: ['test'],
      access: { kind: 'protected', role: 'admin', bucket: 'admin-export' },
      schema: { response: { 200: Type.Object({ exported: Type.Boolean() }) } },
      handler: async () => ({ body: { exported: true } }),
    },
    {
      method: 'GET',
      path: '/test/items/:itemId',
      operationId: 'testGetItem',
      summary: 'Echoes validated params and query',
      tags: ['test'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      schema: {
        params: Type.Object({ itemId: Type.String({ pattern: '^[a-z0-9-]{1,20}$' }) }),
        querystring: ItemQuery,
        response: { 200: Type.Object({ itemId: Type.String(), query: Type.Object({}, { additionalProperties: true }) }) },
      },
      handler: async (ctx: RouteContext<Record<string, unknown>, { itemId: string }>) => ({
        body: { itemId: ctx.params.itemId, query: ctx.query, undocumentedField: 'kept' },
      }),
    },
    {
      method: 'GET',
      path: '/test/boom',
      operationId: 'testBoom',
      summary: 'Fails with a plain Error',
      tags: ['test'],
      access: { kind: 'protected', role: 'viewer', bucket: 'viewer-read' },
      schema: { response: { 200: Type.Object({}) } },
      handler: async () => {
        throw new Error('connection to db-internal.example:5432 failed for user orch_admin');
      },
    },
    {
      method: 'GET',
      path: '/test/boom-sync',
      operationId: 'testBoomSync',
      summary: 'A synchronous handler failing with a plain Error',
      tags: ['test'],
      access: { kind: 'public', bucket: 'health-public' },
      schema: { response: { 200: Type.Object({}) } },
      handler: () => {
        throw new Error('sync failure reading /srv/secret-path');
      },
    },
    {
      method: 'GET',
      path: '/test/corrupt-state',
      operationId: 'testCorruptState',
      summary: 'Fails with a state_corrupt DomainError whose message names a server path',
      tags: ['test'],
      access: { kind: 'public', bucket: 'health-public' },
      schema: { response: { 200: Type.Object({}) } },
      handler: () => {
        throw new DomainError('state_corrupt', 'state file /srv/orchestrator/state.json is not valid JSON');
      },
    },
    {
      method: 'POST',
      path: '/test/search',
      operationId: 'testSearch',
      summary: 'A cached POST read (the body is part of the cache key)',
      tags: ['test'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      cache: { tags: [NOTES_TAG] },
      schema: {
        body: Type.Object({ query: Type.String({ minLength: 1 }) }, { additionalProperties: false }),
        response: { 200: Type.Object({ query: Type.String(), handlerRuns: Type.Integer() }) },
      },
      handler: (() => {
        let runs = 0;
        return async (ctx: RouteContext<unknown, unknown, { query: string }>) => ({ body: { query: ctx.body.query, handlerRuns: ++runs } });
      })(),
    },
    {
      method: 'POST',
      path: '/test/ingest',
      operationId: 'testIngest',
      summary: 'A signed-ingest shaped route (the envelope applies only the abuse guard; signatures are the handler’s job)',
      tags: ['test'],
      access: { kind: 'signed' },
      schema: { body: Type.Object({ event: Type.String() }), response: { 202: Type.Object({ accepted: Type.Boolean() }) } },
      handler: async () => ({ statusCode: 202, body: { accepted: true } }),
    },
    {
      method: 'GET',
      path: '/test/public-counter',
      operationId: 'testPublicCounter',
      summary: 'A cached public read that counts how often its handler ran',
      tags: ['test'],
      access: { kind: 'public', bucket: 'docs-public' },
      cache: { tags: [NOTES_TAG], maxAgeSeconds: 12 },
      schema: { response: { 200: Type.Object({ handlerRuns: Type.Integer() }) } },
      handler: (() => {
        let runs = 0;
        return async () => ({ body: { handlerRuns: ++runs } });
      })(),
    },
  ];
}
