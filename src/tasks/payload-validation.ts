import { Compile, type Validator } from 'typebox/compile';
import type { ErrorDetail } from '../http/errors.js';
import { getCatalogEntry, type CatalogEntry } from './catalog.js';
import { getPayloadSchema } from './payload-schemas.js';

export type TriggerValidation =
  | { ok: true; type: string; payload: Record<string, unknown>; entry: CatalogEntry }
  | {
      ok: false;
      statusCode: 400;
      code: 'invalid_request' | 'task_type_internal' | 'reserved_field';
      message: string;
      details: ErrorDetail[];
    };

/**
 * Fields the service sets on its own runs. A client that could send them could make a task look
 * approved or replayed, so they are refused rather than silently dropped.
 */
export const RESERVED_PAYLOAD_FIELDS = [
  'approvedFromTaskId',
  'approvalDecisionId',
  'approvalId',
  'approvedBy',
  'approved',
  'decidedBy',
] as const;

/** The run-id namespace of approval replays; only the approvals module may mint keys in it. */
export const APPROVAL_REPLAY_PREFIX = 'approval-replay:';

const BODY_FIELDS = new Set(['type', 'payload']);

type AnyValidator = Validator;
const validators = new Map<string, AnyValidator>();

function validatorFor(type: string): AnyValidator | undefined {
  let v = validators.get(type);
  if (!v) {
    const schema = getPayloadSchema(type);
    if (!schema) return undefined;
    v = Compile(schema) as unknown as AnyValidator;
    validators.set(type, v);
  }
  return v;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON Pointer escaping of one key (RFC 6901). */
function pointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function fail(
  code: 'invalid_request' | 'task_type_internal' | 'reserved_field',
  message: string,
  details: ErrorDetail[],
): TriggerValidation {
  return { ok: false, statusCode: 400, code, message, details };
}

/**
 * Turns schema errors into one detail per problem. Union branch errors are noise to a client
 * ("branch 2 wanted `path`") so only the union's own verdict is kept; `required` and
 * `additionalProperties` are split per field so each detail points at the field concerned.
 */
function schemaDetails(validator: AnyValidator, value: unknown, prefix: string): ErrorDetail[] {
  const seen = new Set<string>();
  const details: ErrorDetail[] = [];
  const add = (path: string, message: string) => {
    const key = `${path}\u0000${message}`;
    if (seen.has(key)) return;
    seen.add(key);
    details.push({ path, message });
  };
  for (const err of validator.Errors(value)) {
    if (err.schemaPath.includes('/anyOf/')) continue;
    const at = `${prefix}${err.instancePath}`;
    const params = err.params as Record<string, unknown>;
    switch (err.keyword) {
      case 'required':
        for (const field of (params.requiredProperties as string[] | undefined) ?? []) add(`${at}/${pointer(field)}`, 'is required');
        break;
      case 'additionalProperties':
        for (const field of (params.additionalProperties as string[] | undefined) ?? []) {
          add(`${at}/${pointer(field)}`, 'is not an accepted field here');
        }
        break;
      case 'boolean':
        // the per-field echo of additionalProperties: false, already reported above
        break;
      case 'enum':
        add(at, `must be one of: ${((params.allowedValues as unknown[] | undefined) ?? []).map(String).join(', ')}`);
        break;
      case 'anyOf':
        add(at, 'does not match any accepted shape (see the payload schema in the task catalog)');
        break;
      default:
        add(at, err.message);
    }
  }
  return details;
}

/** Schema problems of a payload for a known task type (empty when valid). Paths start at `/payload`. */
export function validatePayload(type: string, payload: Record<string, unknown>): ErrorDetail[] {
  const validator = validatorFor(type);
  if (!validator) return [{ path: '/type', message: `unknown task type '${type}'` }];
  return validator.Check(payload) ? [] : schemaDetails(validator, payload, '/payload');
}

function reservedFieldDetails(payload: Record<string, unknown>): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const key of Object.keys(payload)) {
    if (key.startsWith('__')) {
      details.push({ path: `/payload/${pointer(key)}`, message: 'fields starting with __ are reserved for the service' });
    } else if ((RESERVED_PAYLOAD_FIELDS as readonly string[]).includes(key)) {
      details.push({ path: `/payload/${pointer(key)}`, message: 'approval linkage is set by the service, never by a client' });
    }
  }
  const key = payload.idempotencyKey;
  if (typeof key === 'string' && key.startsWith(APPROVAL_REPLAY_PREFIX)) {
    details.push({
      path: '/payload/idempotencyKey',
      message: `the ${APPROVAL_REPLAY_PREFIX} namespace is reserved for approval replays`,
    });
  }
  return details;
}

/**
 * Checks a trigger body `{type, payload?}` against the catalog and the type's payload schema.
 * Order matters for the error a client sees: shape of the body, then the type (unknown before
 * internal), then reserved fields, then the schema. Pure: no I/O, the workspace boundary of
 * scope fields is checked separately (src/workspace/boundary.ts).
 */
export function validateTrigger(body: unknown): TriggerValidation {
  if (!isPlainObject(body)) {
    return fail('invalid_request', 'request body must be a JSON object {type, payload?}', [
      { path: '/', message: 'must be an object' },
    ]);
  }
  const extra = Object.keys(body).filter((k) => !BODY_FIELDS.has(k));
  if (extra.length > 0) {
    return fail(
      'invalid_request',
      'request body accepts only type and payload; task options belong inside payload',
      extra.map((k) => ({ path: `/${pointer(k)}`, message: 'is not an accepted field' })),
    );
  }
  const { type } = body;
  if (typeof type !== 'string' || type === '') {
    return fail('invalid_request', 'type must be a non-empty string', [
      { path: '/type', message: type === undefined ? 'is required' : 'must be a non-empty string' },
    ]);
  }
  const rawPayload = body.payload === undefined ? {} : body.payload;
  if (!isPlainObject(rawPayload)) {
    return fail('invalid_request', 'payload must be a JSON object', [{ path: '/payload', message: 'must be an object' }]);
  }

  const entry = getCatalogEntry(type);
  if (!entry) {
    return fail('invalid_request', `unknown task type '${type}'`, [
      { path: '/type', message: 'is not a task type of the catalog (GET /api/tasks/catalog lists them)' },
    ]);
  }
  if (entry.internalOnly) {
    return fail('task_type_internal', `task type '${type}' is internal-only and cannot be triggered`, [
      { path: '/type', message: 'is an internal-only task type' },
    ]);
  }

  const reserved = reservedFieldDetails(rawPayload);
  if (reserved.length > 0) {
    return fail('reserved_field', 'payload carries fields reserved for the service', reserved);
  }

  const problems = validatePayload(type, rawPayload);
  if (problems.length > 0) {
    return fail('invalid_request', `payload is not valid for task type '${type}'`, problems);
  }
  return { ok: true, type, payload: rawPayload, entry };
}
