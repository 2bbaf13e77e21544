import { jsonBoundsProblem } from '../domain/json-bounds.js';
import { HttpError } from './errors.js';

/** 400 `invalid_request` for a JSON body refused as a whole (not JSON, past a bound), its detail at `/body`. */
export function invalidJsonBody(message: string): HttpError {
  return new HttpError('invalid_request', message, { details: [{ path: '/body', message }] });
}

/**
 * The refusal of a parsed JSON body that crosses the service's depth or size bound
 * (src/domain/json-bounds.ts), or null when it stays within both. Every JSON body of the table's
 * routes passes here once parsed, which is after the route's access checks (they run in
 * onRequest), so a caller without a key still learns nothing about its body.
 */
export function bodyBoundsError(body: unknown): HttpError | null {
  const problem = jsonBoundsProblem(body, 'The request body');
  return problem ? invalidJsonBody(problem.message) : null;
}
