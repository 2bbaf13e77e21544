import Type from 'typebox';
import { describe, expect, it } from 'vitest';
import { docsPublic, operatorWrite, routeFamily, viewerRead } from '../../src/http/route-spec.js';

const schema = { response: { 200: Type.Object({}) } };

describe('routeFamily', () => {
  it('makes each route a RouteSpec with the method and path asked for and the family’s tags and access', () => {
    const writes = routeFamily({ tags: ['alerts'], access: operatorWrite });
    const handler = () => ({ body: {} });
    const route = writes.patch('/api/alerts/:id', { operationId: 'patchAlert', summary: 'Change an alert', cache: { tags: ['a'] }, schema, handler });
    expect(route).toEqual({
      method: 'PATCH',
      path: '/api/alerts/:id',
      operationId: 'patchAlert',
      summary: 'Change an alert',
      tags: ['alerts'],
      access: { kind: 'protected', role: 'operator', bucket: 'operator-write' },
      cache: { tags: ['a'] },
      schema,
      handler,
    });
    expect(['get', 'post', 'delete'].map((m) => writes[m as 'get' | 'post' | 'delete']('/x', { operationId: m, summary: m, schema, handler }).method)).toEqual([
      'GET',
      'POST',
      'DELETE',
    ]);
  });

  it('gives every route its own tags list, so changing one route’s tags leaves the others alone', () => {
    const reads = routeFamily({ tags: ['knowledge'], access: viewerRead });
    const first = reads.get('/a', { operationId: 'a', summary: 'a', schema, handler: () => ({}) });
    const second = reads.get('/b', { operationId: 'b', summary: 'b', schema, handler: () => ({}) });
    first.tags.push('changed');
    expect(second.tags).toEqual(['knowledge']);
  });

  it('keeps the named access levels frozen: a route cannot change the level every other route shares', () => {
    const route = routeFamily({ tags: ['meta'], access: docsPublic }).get('/doc', { operationId: 'doc', summary: 'doc', schema, handler: () => ({}) });
    expect(() => Object.assign(route.access, { bucket: 'proof-public' })).toThrow(TypeError);
    expect(docsPublic).toEqual({ kind: 'public', bucket: 'docs-public' });
  });
});
