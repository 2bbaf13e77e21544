import type { FastifySchemaCompiler, FastifySchemaValidationError } from 'fastify';
import type { TSchema } from 'typebox';
import { Compile, type Validator } from 'typebox/compile';
import { Value } from 'typebox/value';
import { pointer, type ErrorDetail } from '../domain/errors.js';

/** TypeBox reports errors in the same shape fastify expects from a validator. */
type SchemaError = FastifySchemaValidationError;

type JsonSchema = { type?: unknown; properties?: Record<string, JsonSchema>; items?: JsonSchema };

/**
 * Query strings and path parameters arrive as text. A value is converted only when it is an exact
 * spelling of the declared type: integers as digits, numbers as finite decimals, booleans exactly
 * `true`/`false`. Anything else is left as text so the schema check rejects it (a looser
 * conversion would turn `1.5` into 1 or `yes` into true without telling the caller).
 */
function coerceText(schema: JsonSchema | undefined, value: unknown): unknown {
  if (schema === undefined) return value;
  if (schema.type === 'array') {
    const items = Array.isArray(value) ? value : [value];
    return items.map((item) => coerceText(schema.items, item));
  }
  if (typeof value !== 'string') return value;
  switch (schema.type) {
    case 'integer':
      return /^-?\d{1,15}$/.test(value) ? Number(value) : value;
    case 'number':
      return /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(value) ? Number(value) : value;
    case 'boolean':
      return value === 'true' ? true : value === 'false' ? false : value;
    default:
      return value;
  }
}

function coerceTextObject(schema: JsonSchema, value: unknown): unknown {
  if (typeof value !== 'object' || value === null || schema.properties === undefined) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, propertySchema] of Object.entries(schema.properties)) {
    if (name in out) out[name] = coerceText(propertySchema, out[name]);
  }
  return out;
}

/**
 * Fastify validator compiler over TypeBox: the route table's schemas validate requests directly.
 * Query/params text is converted strictly (see coerceText); declared defaults are filled in.
 * Bodies are JSON, so they are checked as sent, never converted. A schema is compiled when its
 * route is first asked for, not when the route is registered: compiling the route table's
 * schemas at start cost every start for routes most of a process's life never sees.
 */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  let compiled: Validator<Record<PropertyKey, TSchema>, TSchema> | null = null;
  const fromText = httpPart === 'querystring' || httpPart === 'params';
  const fillDefaults = defaultsFiller(schema);
  return (input: unknown) => {
    let value = fromText ? coerceTextObject(schema as JsonSchema, input ?? {}) : input;
    if (fillDefaults !== null && value !== null && typeof value === 'object') value = fillDefaults(value as Record<string, unknown>);
    const check = (compiled ??= Compile(schema));
    if (check.Check(value)) return { value };
    return { error: check.Errors(value) as SchemaError[] };
  };
};

/**
 * How a schema's declared defaults are filled in, or null when it declares none. TypeBox's
 * `Value.Default` walks the whole schema on every request (2% of a trigger's CPU, 4.6% of a
 * cached list read); most bodies declare no default, and the list queries declare them only on
 * their own top-level properties (`limit`, `offset`), which a loop fills in the same way: a
 * property left undefined gets a copy of its default. Any other placement keeps the walk.
 */
export function defaultsFiller(schema: TSchema): ((value: Record<string, unknown>) => unknown) | null {
  if (!declaresDefaults(schema)) return null;
  const topLevel = topLevelDefaults(schema);
  if (topLevel === null) return (value) => Value.Default(schema, value);
  return (value) => {
    for (const [name, fallback] of topLevel) {
      if (value[name] === undefined) value[name] = typeof fallback === 'object' && fallback !== null ? structuredClone(fallback) : fallback;
    }
    return value;
  };
}

/** The defaults of an object schema's own properties, or null when a default sits anywhere else. */
function topLevelDefaults(schema: TSchema): Array<[string, unknown]> | null {
  const { properties, ...rest } = schema as { properties?: Record<string, Record<string, unknown>> } & Record<string, unknown>;
  if (properties === undefined || declaresDefaults(rest)) return null;
  const defaults: Array<[string, unknown]> = [];
  for (const [name, property] of Object.entries(properties)) {
    const { default: fallback, ...inner } = property;
    if (declaresDefaults(inner)) return null;
    if (Object.hasOwn(property, 'default')) defaults.push([name, fallback]);
  }
  return defaults;
}

/**
 * Whether a schema declares a default anywhere inside it. A reference counts as one: what it
 * points to is not known here, so the defaults step stays on for it.
 */
export function declaresDefaults(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.some(declaresDefaults);
  if (schema === null || typeof schema !== 'object') return false;
  if (Object.hasOwn(schema, 'default') || Object.hasOwn(schema, '$ref')) return true;
  return Object.values(schema).some(declaresDefaults);
}

/**
 * A detail's JSON Pointer: the request part first (`body`, `querystring`, `params`), then the
 * schema error's own pointer, then the named property of a `required`/`additionalProperties` error.
 */
function detailPath(context: string, instancePath: string, extra?: string): string {
  return pointer(context) + instancePath + (extra === undefined ? '' : pointer(extra));
}

/**
 * Turns schema errors into `{path, message}` details: one per problem, paths like
 * `/body/payload/type` or `/querystring/limit`. A failed union reports once, listing the allowed
 * values when they are constants, instead of once per alternative.
 */
export function validationDetails(context: string, errors: SchemaError[]): ErrorDetail[] {
  const unions = errors.filter((e) => e.keyword === 'anyOf');
  const insideUnion = (e: SchemaError) => unions.some((u) => e.schemaPath.startsWith(`${u.schemaPath}/anyOf/`));
  const details = new Map<string, ErrorDetail>();
  const add = (path: string, message: string) => details.set(`${path}\u0000${message}`, { path, message });

  for (const error of errors) {
    if (insideUnion(error)) continue;
    const params = error.params ?? {};
    if (error.keyword === 'required') {
      for (const name of (params.requiredProperties as string[] | undefined) ?? []) {
        add(detailPath(context, error.instancePath, name), 'is required');
      }
    } else if (error.keyword === 'additionalProperties') {
      for (const name of (params.additionalProperties as string[] | undefined) ?? []) {
        add(detailPath(context, error.instancePath, name), 'is not an allowed property');
      }
    } else if (error.keyword === 'boolean' && error.schemaPath.endsWith('/additionalProperties')) {
      add(detailPath(context, error.instancePath), 'is not an allowed property');
    } else if (error.keyword === 'anyOf') {
      const allowed = errors
        .filter((e) => e.keyword === 'const' && e.schemaPath.startsWith(`${error.schemaPath}/anyOf/`))
        .map((e) => JSON.stringify(e.params.allowedValue));
      add(
        detailPath(context, error.instancePath),
        allowed.length > 0 ? `must be one of ${allowed.join(', ')}` : (error.message ?? 'matches none of the allowed shapes'),
      );
    } else {
      add(detailPath(context, error.instancePath), error.message ?? `fails ${error.keyword}`);
    }
  }
  return [...details.values()];
}
