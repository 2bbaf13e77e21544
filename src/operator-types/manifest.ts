import Type, { type Static } from 'typebox';
import { Compile } from 'typebox/compile';
import { configError } from '../config/errors.js';
import { validatorOf } from '../task-types/schema-check.js';
import type { TSchema } from 'typebox';

/** The file that makes a folder of the task types folder an operator task type. */
export const MANIFEST_FILE_NAME = 'task-type.json';

/** Type names: lower-case words joined by `-`, as the built-in types are named. */
export const OPERATOR_TYPE_PATTERN = '^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$';

/** Any JSON object: a JSON Schema is checked by compiling it, not by this shape. */
const JsonObject = Type.Record(Type.String(), Type.Unknown());

/**
 * The shape of `<taskTypesDir>/<folder>/task-type.json` (docs/task-types.md "Write your own task
 * type"). Unknown keys are refused, as in agent manifests, so a typo (`timeout` for `timeoutMs`)
 * stops the start instead of silently reading as the default.
 */
export const OperatorManifestSchema = Type.Object(
  {
    type: Type.String({ pattern: OPERATOR_TYPE_PATTERN, maxLength: 64 }),
    label: Type.String({ minLength: 1, maxLength: 100 }),
    purpose: Type.String({ minLength: 1, maxLength: 2000 }),
    /** The program and its arguments, run without a shell with its own folder as working directory. */
    command: Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: 64 }),
    payloadSchema: JsonObject,
    resultSchema: Type.Optional(JsonObject),
    /** The console's view of a result (src/task-types/result-view.ts); absent: the generic tree. */
    resultView: Type.Optional(JsonObject),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 100, maximum: 24 * 60 * 60 * 1000 })),
    retryable: Type.Optional(Type.Boolean()),
    approvalGated: Type.Optional(Type.Boolean()),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    network: Type.Optional(Type.Boolean()),
    model: Type.Optional(Type.Object({ tier: Type.Union([Type.Literal('none'), Type.Literal('local'), Type.Literal('standard')]) }, { additionalProperties: false })),
    scopeFields: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { uniqueItems: true })),
  },
  { additionalProperties: false },
);

export type OperatorManifest = Static<typeof OperatorManifestSchema>;

const validator = Compile(OperatorManifestSchema);

/** The payload fields the service owns on every type (schema-kit COMMON_FIELDS): a manifest may not declare them. */
const SERVICE_FIELDS = ['idempotencyKey', 'requiresApproval'];

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * What a JSON Schema of a manifest gets wrong: it must describe an object (a payload and a result
 * are JSON objects) and compile with the checker admission and finalize use. A schema the
 * checker cannot compile would otherwise refuse or pass every payload without saying why.
 */
function schemaProblem(field: 'payloadSchema' | 'resultSchema', schema: Record<string, unknown>): string | null {
  if (schema.type !== 'object') return `/${field} must be a JSON Schema of an object ("type": "object")`;
  if (schema.properties !== undefined && !isRecord(schema.properties)) return `/${field}/properties must be an object`;
  try {
    // A copy: the checker caches validators by schema object, and the service keeps its own.
    validatorOf(structuredClone(schema) as TSchema);
  } catch (err) {
    return `/${field} cannot be compiled: ${(err as Error).message}`;
  }
  return null;
}

/** Rules the manifest schema cannot express. Each problem starts with the field's JSON pointer. */
function consistencyProblems(m: OperatorManifest): string[] {
  const problems: string[] = [];
  for (const field of ['payloadSchema', 'resultSchema'] as const) {
    const schema = m[field];
    if (schema === undefined) continue;
    const problem = schemaProblem(field, schema);
    if (problem) problems.push(problem);
  }
  const properties = isRecord(m.payloadSchema.properties) ? m.payloadSchema.properties : {};
  for (const name of Object.keys(properties)) {
    if (SERVICE_FIELDS.includes(name)) problems.push(`/payloadSchema/properties/${name} is the service's own field (every type accepts it); remove it`);
    if (name.startsWith('__')) problems.push(`/payloadSchema/properties/${name}: fields starting with __ are reserved for the service`);
  }
  // The model gateway's endpoint is on the host's loopback, which an isolated network namespace cannot reach.
  if (m.model && m.model.tier !== 'none' && m.network !== true) {
    problems.push(`/model/tier '${m.model.tier}' needs "network": true (the model gateway's endpoint is on the host's loopback)`);
  }
  for (const [i, field] of (m.scopeFields ?? []).entries()) {
    const root = field.split(/[.[]/)[0]!;
    if (!(root in properties)) problems.push(`/scopeFields/${i} names '${root}', which is not a property of payloadSchema`);
  }
  return problems;
}

/**
 * Checks parsed manifest JSON; throws an `invalid_config` error naming the file and each field
 * that is wrong (as agent manifests do), so a broken folder stops the start with a message an
 * operator can act on.
 */
export function parseOperatorManifest(data: unknown, manifestPath: string): OperatorManifest {
  if (!validator.Check(data)) {
    const problems = [...new Set([...validator.Errors(data)].map((e) => `${e.instancePath || '/'} ${e.message}`))].slice(0, 8).join('; ');
    throw configError(`invalid task type manifest ${manifestPath}: ${problems}`);
  }
  const problems = consistencyProblems(data);
  if (problems.length > 0) throw configError(`invalid task type manifest ${manifestPath}: ${problems.join('; ')}`);
  return data;
}
