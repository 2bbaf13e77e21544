import Type, { type Static } from 'typebox';

/**
 * What a trigger answers (and a rerun, which answers the same way): a new key is queued, a key
 * some run already owns is duplicate-suppressed. The route schemas and the client library's
 * types both come from here.
 */
export const Queued = Type.Object({
  status: Type.Literal('queued'),
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  createdAt: Type.String({ format: 'date-time' }),
});
export const Duplicate = Type.Object({
  status: Type.Literal('duplicate-suppressed'),
  taskId: Type.String(),
  runId: Type.String(),
  type: Type.String(),
  existingStatus: Type.String(),
  reason: Type.String(),
});

export type TriggerAnswer = Static<typeof Queued> | Static<typeof Duplicate>;
