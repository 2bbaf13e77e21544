import Type, { type Static } from 'typebox';

/*
 * The answer of GET /api/tasks/runs (one page of run views). The route's response schema and
 * the operator console's types both come from here; no Node APIs, so browser code imports it.
 */

export const RunObject = Type.Object(
  {
    runId: Type.String(),
    taskId: Type.String(),
    type: Type.String(),
    status: Type.String(),
    tags: Type.Array(Type.String(), { description: 'labels its admission gave it (docs/tasks.md, "Run tags"); empty when none' }),
    queueAttempts: Type.Array(Type.Object({}, { additionalProperties: true })),
    events: Type.Array(Type.Object({}, { additionalProperties: true })),
    workflow: Type.Object({}, { additionalProperties: true }),
    workflowGraph: Type.Object({}, { additionalProperties: true }),
    approval: Type.Object({}, { additionalProperties: true }),
    proofLinks: Type.Array(Type.Object({}, { additionalProperties: true })),
    resultSummary: Type.Object({}, { additionalProperties: true }),
    heldBy: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'a ready run: the limit bucket holding it back, `type:<type>` for a per-type limit at its cap, or null (docs/queue.md)',
      }),
    ),
  },
  { additionalProperties: true, description: 'a run record with its derived workflow views' },
);

export const RunListPage = Type.Object({
  items: Type.Array(RunObject),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  nextCursor: Type.Union([Type.String(), Type.Null()], { description: 'pass as cursor for the next page; null on the last' }),
});

/** The page's envelope; its items are run views (src/runtime/run-view.ts), which the schema leaves open. */
export type RunListEnvelope = Omit<Static<typeof RunListPage>, 'items'>;
