import { Compile, type Validator } from 'typebox/compile';
import type { TSchema } from 'typebox';
import { pointerSegment, type ErrorDetail } from '../domain/errors.js';

/**
 * The one check of a value against a task type's schema, shared by admission (payloads), the
 * worker SDK (payloads again, in the worker), and finalize (results), so a refusal has the same
 * words and JSON-pointer details wherever it is made. It imports nothing but TypeBox and the
 * error shapes: worker processes load it. It only checks: nothing is converted or cleaned.
 */

const validators = new WeakMap<TSchema, Validator>();

export function validatorOf(schema: TSchema): Validator {
  let validator = validators.get(schema);
  if (!validator) {
    validator = Compile(schema) as unknown as Validator;
    validators.set(schema, validator);
  }
  return validator;
}

/**
 * Turns schema errors into one detail per problem. Union branch errors are noise to a client
 * ("branch 2 wanted `path`") so only the union's own verdict is kept; `required` and
 * `additionalProperties` are split per field so each detail points at the field concerned.
 */
function schemaDetails(validator: Validator, value: unknown, prefix: string, what: string): ErrorDetail[] {
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
        add(at, `does not match any accepted shape (see the ${what} schema in the task catalog)`);
        break;
      default:
        add(at, err.message);
    }
  }
  return details;
}

/**
 * The schema problems of a value, empty when it is valid. Each detail's path is `prefix`
 * followed by the JSON pointer into the value: the trigger route passes `/body/payload`, a
 * worker passes nothing, so its paths start at the payload itself (`/scope`).
 */
export function schemaProblems(schema: TSchema, value: unknown, prefix = '', what: 'payload' | 'result' = 'payload'): ErrorDetail[] {
  const validator = validatorOf(schema);
  return validator.Check(value) ? [] : schemaDetails(validator, value, prefix, what);
}
