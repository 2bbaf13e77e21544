import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { declaresDefaults, defaultsFiller, validatorCompiler } from '../../src/http/validation.js';

const compile = (schema: ReturnType<typeof Type.Object>, httpPart: string) =>
  validatorCompiler({ schema, httpPart, method: 'GET', url: '/x' } as unknown as Parameters<typeof validatorCompiler>[0]) as (input: unknown) => {
    value?: unknown;
    error?: unknown;
  };

describe('declaresDefaults', () => {
  it('finds a default at any depth, in arrays and unions, and treats a reference as one', () => {
    expect(declaresDefaults(Type.Object({ a: Type.String() }))).toBe(false);
    expect(declaresDefaults(Type.Object({ a: Type.Optional(Type.Integer({ default: 5 })) }))).toBe(true);
    expect(declaresDefaults(Type.Object({ a: Type.Object({ b: Type.Array(Type.Object({ c: Type.String({ default: 'x' }) })) }) }))).toBe(true);
    expect(declaresDefaults(Type.Object({ a: Type.Union([Type.Literal('x'), Type.Literal('y')], { default: 'x' }) }))).toBe(true);
    expect(declaresDefaults({ type: 'object', properties: { a: { $ref: '#/defs/a' } } })).toBe(true);
    // A required list naming a property "default" declares no default value.
    expect(declaresDefaults({ type: 'object', properties: { other: { type: 'string' } }, required: ['default'] })).toBe(false);
  });
});

describe('validatorCompiler defaults', () => {
  it('fills declared defaults in and leaves a schema without any to check the input as sent', () => {
    const withDefaults = compile(Type.Object({ limit: Type.Optional(Type.Integer({ default: 50 })) }), 'querystring');
    expect(withDefaults({})).toEqual({ value: { limit: 50 } });
    expect(withDefaults({ limit: '7' })).toEqual({ value: { limit: 7 } });

    const plain = compile(Type.Object({ type: Type.String(), payload: Type.Optional(Type.Object({})) }, { additionalProperties: false }), 'body');
    const body = { type: 'doc-sync' };
    const result = plain(body);
    expect(result).toEqual({ value: { type: 'doc-sync' } });
    expect(result.value).toBe(body);
    expect(plain({ type: 1 }).error).toBeDefined();
  });
});

describe('defaultsFiller', () => {
  const schemas = {
    // The list queries: defaults on their own top-level properties (the loop).
    listQuery: Type.Object({
      limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
      offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
      status: Type.Optional(Type.String()),
    }),
    unionDefault: Type.Object({ collection: Type.Optional(Type.Union([Type.Literal('runs'), Type.Literal('telemetry')], { default: 'runs' })) }),
    objectDefault: Type.Object({ filter: Type.Optional(Type.Object({ paths: Type.Array(Type.String()) }, { default: { paths: ['a'] } })) }),
    // A default below a property: TypeBox's own walk.
    nested: Type.Object({ page: Type.Optional(Type.Object({ size: Type.Optional(Type.Integer({ default: 10 })) })) }),
  };
  const inputs = [{}, { limit: 5 }, { offset: 3, status: 'x' }, { collection: 'telemetry' }, { filter: { paths: [] } }, { page: {} }, { page: { size: 2 } }, { limit: undefined }];

  it('fills in exactly what TypeBox Value.Default does, for every schema and input', () => {
    for (const [name, schema] of Object.entries(schemas)) {
      const fill = defaultsFiller(schema)!;
      expect(fill, name).not.toBeNull();
      for (const input of inputs) {
        expect(fill(structuredClone(input)), `${name} ${JSON.stringify(input)}`).toEqual(Value.Default(schema, structuredClone(input)));
      }
    }
  });

  it('gives every request its own copy of an object default', () => {
    const fill = defaultsFiller(schemas.objectDefault)!;
    const first = fill({}) as { filter: { paths: string[] } };
    first.filter.paths.push('changed');
    expect(fill({})).toEqual({ filter: { paths: ['a'] } });
  });

  it('is null for a schema without defaults', () => {
    expect(defaultsFiller(Type.Object({ type: Type.String() }))).toBeNull();
  });
});
