import Type from 'typebox';
import type { ErrorCode } from './errors.js';

/** Every error code the service answers with, for documentation. */
export const ERROR_CODES = [
  'invalid_request',
  'task_type_internal',
  'reserved_field',
  'scope_outside_workspace',
  'unauthorized',
  'forbidden',
  'origin_not_allowed',
  'not_found',
  'conflict',
  'payload_too_large',
  'rate_limited',
  'invalid_signature',
  'internal_error',
] as const satisfies readonly ErrorCode[];

// Fails to compile when ErrorCode gains a code this list does not document.
const everyCodeListed: Exclude<ErrorCode, (typeof ERROR_CODES)[number]> extends never ? true : false = true;
void everyCodeListed;

/** The one error body: `{"error":{"code","message","requestId","details"?}}`. */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.Union(ERROR_CODES.map((code) => Type.Literal(code))),
        message: Type.String({ description: 'a human sentence; never internals' }),
        requestId: Type.String({ description: 'equals the X-Request-Id response header' }),
        details: Type.Optional(
          Type.Unknown({ description: 'validation errors: a list of {path, message}, one per problem; 429: the bucket and wait' }),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
