import { ProgrammingError } from '../domain/errors.js';
import { Compile, type Validator } from 'typebox/compile';
import { pointerSegment, type ErrorDetail } from '../domain/errors.js';
import { getPayloadSchema } from './payload-schemas.js';

/**
 * The one check of a payload against its task type's schema, shared by the admission path
 * (src/tasks/payload-validation.ts) and the worker SDK (src/worker-sdk/lane-definition.ts), so a
 * worker refuses a payload with the same words and JSON-pointer details a client would get.
 * It imports nothing but TypeBox, the schemas and the error shapes: worker processes load it.
 *
 * It only checks. The schemas declare no defaults and nothing here converts or cleans a value,
 * so the payload a worker runs on is the very object admission accepted.
 */

const validators = new Map<string, Validator>();

function validatorFor(type: string): Validator | undefined {
  let validator = validators.get(type);
  if (!validator) {
    const schema = getPayloadSchema(type);
    if (!schema) return undefined;
    validator = Compile(schema) as unknown as Validator;
    validators.set(type, validator);
  }
  return validator;
}

/**
 * Turns schema errors into one detail per problem. Union branch errors are noise to a client
 * ("branch 2 wanted `path`") so only the union's own verdict is kept; `required` and
 * `additionalProperties` are split per field so each detail points at the field concerned.
 */
function schemaDetails(validator: Validator, value: unknown, prefix: string): ErrorDetail[] {
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
        for (const field of (params.requiredProperties as string[] | undefined) ?? []) add(`${at}/${pointerSegment(field)}`, 'is required');
        break;
      case 'additionalProperties':
        for (const field of (params.additionalProperties as string[] | undefined) ?? []) {
          add(`${at}/${pointerSegment(field)}`, 'is not an accepted field here');
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

/** Whether `type` has a payload schema (every catalog type has one). */
export function hasPayloadSchema(type: string): boolean {
  return getPayloadSchema(type) !== undefined;
}

/**
 * The schema problems of a payload of a known task type, empty when it is valid. Each detail's
 * path is `prefix` followed by the JSON pointer into the payload: the trigger route passes
 * `/body/payload`, a worker passes nothing, so its paths start at the payload itself (`/scope`).
 * Throws for a type without a schema: callers check the type first.
 */
export function payloadProblems(type: string, payload: unknown, prefix = ''): ErrorDetail[] {
  const validator = validatorFor(type);
  if (!validator) throw new ProgrammingError(`no payload schema for task type '${type}'`);
  return validator.Check(payload) ? [] : schemaDetails(validator, payload, prefix);
}
