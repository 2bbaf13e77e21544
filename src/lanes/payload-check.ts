import { ProgrammingError, type ErrorDetail } from '../domain/errors.js';
import { schemaProblems } from '../task-types/schema-check.js';
import { getPayloadSchema } from './payload-schemas.js';

/**
 * The check of a payload against its task type's schema, shared by the admission path
 * (src/runtime/payload-validation.ts) and the worker SDK (src/worker-sdk/lane-definition.ts), so a
 * worker refuses a payload with the same words and JSON-pointer details a client would get.
 * Worker processes load it. It only checks: the payload a worker runs on is the very object
 * admission accepted.
 */

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
  const schema = getPayloadSchema(type);
  if (!schema) throw new ProgrammingError(`no payload schema for task type '${type}'`);
  return schemaProblems(schema, payload, prefix);
}
