import Type from 'typebox';
import { ERROR_CODES } from '../domain/errors.js';

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
