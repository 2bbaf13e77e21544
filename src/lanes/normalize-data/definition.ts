import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

const NORMALIZE_FIELD_TYPE = Type.Enum(['string', 'number', 'integer', 'boolean', 'date', 'email', 'url'], {
  description: 'Target type of the field.',
});

/** The normalize-data task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const normalizeDataType = defineTaskType({
  type: 'normalize-data',
  label: 'Normalize data',
  purpose: 'Coerces records to a field schema, rejects invalid ones with reasons and de-duplicates.',
  agentId: 'normalization-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  payloadSchema: payloadSchema('Coerce records to a field schema.', {
    records: Type.Array(Type.Object({}, { additionalProperties: true }), {
      maxItems: 10_000,
      description: 'Records to normalize.',
    }),
    schema: Type.Record(
      Type.String(),
      Type.Union([
        NORMALIZE_FIELD_TYPE,
        Type.Object(
          {
            type: NORMALIZE_FIELD_TYPE,
            required: Type.Optional(Type.Boolean({ description: 'Reject records without the field.' })),
            trim: Type.Optional(Type.Boolean({ description: 'Trim surrounding whitespace.' })),
            lowercase: Type.Optional(Type.Boolean({ description: 'Lower-case the value.' })),
          },
          { additionalProperties: false },
        ),
      ]),
      { minProperties: 1, maxProperties: 200, description: 'Field name → type, or {type, required?, trim?, lowercase?}; 1 to 200 fields.' },
    ),
    dedupeBy: Type.Optional(
      Type.Array(Type.String({ minLength: 1 }), {
        minItems: 1,
        maxItems: 20,
        description: 'Schema fields whose values identify duplicates; leave it out to keep duplicates.',
      }),
    ),
  }, { records: [{ id: '1', email: ' Ada@Example.com ' }], schema: { id: 'integer', email: 'email' }, dedupeBy: ['email'] }),
  resultSchema: laneResult('Normalize data result.', {}),
  // Records and schema travel in the payload: no file, process, network or state access.
  skills: [],
});
