import { Type } from 'typebox';
import { describe, expect, it } from 'vitest';
import { declaresDefaults, validatorCompiler } from '../../src/http/validation.js';

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
