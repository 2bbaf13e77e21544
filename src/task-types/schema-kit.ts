import Type, { type TProperties, type TSchema } from 'typebox';

/**
 * The building blocks of task type schemas: the payload fields every task may carry, the
 * payload and result schema shapes, and the described field kinds the built-in types share.
 * It imports only TypeBox: worker processes load the definitions built from it.
 *
 * No schema declares a `default`: admission checks a payload as sent and stores it unchanged, so
 * a default would be seen by one side and not the other. A lane applies its own documented
 * defaults to an absent field.
 */

/** 1–200 printable ASCII characters, no whitespace (it becomes the run id). */
export const IDEMPOTENCY_KEY_PATTERN = '^[\\x21-\\x7E]{1,200}$';

/**
 * The rule of a name that becomes a file name (a work chain's evidence folder), as schedule ids
 * follow it: letters, digits, `.`, `_`, `-`, starting with a letter or digit, at most 100. It
 * can never be `.` or `..`, nor hold a `/`.
 */
export const WORK_CHAIN_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$';

/** The service's own payload fields, accepted by every type whatever its schema says. */
export const COMMON_FIELDS = {
  requiresApproval: Type.Optional(
    Type.Boolean({ description: 'When true, the run is held for an operator decision before it executes.' }),
  ),
  idempotencyKey: Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Becomes the run id; a second trigger with the same key is suppressed as a duplicate. 1–200 printable characters without whitespace.',
    }),
  ),
};

/**
 * A payload schema. Payload objects are open (additionalProperties true): fields the contract
 * does not name are kept and handed to the lane unchanged, while a named field of the wrong type
 * is refused. `example` is a complete payload that passes the schema; the console offers it as
 * the starting payload of the trigger form.
 */
export function payloadSchema<P extends TProperties>(description: string, fields: P, example?: Record<string, unknown>) {
  return Type.Object({ ...COMMON_FIELDS, ...fields }, { additionalProperties: true, description, ...(example ? { examples: [example] } : {}) });
}

export const workspacePath = (description: string) =>
  Type.String({ minLength: 1, maxLength: 1024, description: `${description} Relative to the workspace root.` });

export const postureScope = (what: string) => workspacePath(`Directory or file ${what}.`);

/** A described string with optional length bounds. */
export const text = (description: string, options: { minLength?: number; maxLength?: number } = {}) =>
  Type.String({ description, ...options });

const SPECIALIST_CONTRACT = Type.Object(
  {
    role: Type.String(),
    workflowStage: Type.String(),
    deliverable: Type.String(),
    status: Type.String({ description: 'completed, partial, refused or escalated.' }),
    refusalReason: Type.Union([Type.String(), Type.Null()]),
    escalationReason: Type.Union([Type.String(), Type.Null()]),
  },
  { additionalProperties: true, description: 'Who the specialist is and where its work ended.' },
);

/** The fields every worker lane answers with (DECISIONS "Lane payloads and results"). */
const LANE_ENVELOPE = {
  success: Type.Boolean({ description: 'Whether the lane did its work.' }),
  operatorSummary: Type.Optional(Type.String({ description: 'One paragraph for the operator.' })),
  recommendedNextActions: Type.Optional(Type.Array(Type.String(), { description: 'What to do next, specific to what was found.' })),
  specialistContract: Type.Optional(SPECIALIST_CONTRACT),
};

/** A worker lane's result: the shared envelope plus the lane's own fields (open: more may follow). */
export function laneResult<P extends TProperties>(description: string, fields: P) {
  return Type.Object({ ...LANE_ENVELOPE, ...fields }, { additionalProperties: true, description });
}

/** An in-process handler's result (the `result` inside its `{status, result}` envelope). */
export function handlerResult<P extends TProperties>(description: string, fields: P) {
  return Type.Object(fields, { additionalProperties: true, description });
}

/** A field that is a string or null. */
export const nullable = <S extends TSchema>(schema: S) => Type.Union([schema, Type.Null()]);
