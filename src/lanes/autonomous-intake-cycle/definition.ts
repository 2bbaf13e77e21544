import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The autonomous-intake-cycle task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const autonomousIntakeCycleType = defineTaskType({
  type: 'autonomous-intake-cycle',
  label: 'Autonomous intake cycle',
  purpose: 'Applies priority, staleness, batch, provenance and idempotency controls to approved sources, then enqueues autonomous-work-cycle.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['intake items in the payload, each from an approved source'],
  caveats: ['Unknown or unapproved sources are never run: each refused item is named with its reason.'],
  retryable: false,
  payloadSchema: payloadSchema('Intake from approved sources; unknown or unapproved sources are not run.', {
    sources: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 20, description: 'Source kinds to consider.' }),
    ),
    batchSize: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, description: 'Most work cycles to enqueue.' })),
    maxAgeHours: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 8760, description: 'Items older than this are refused as stale (default 72).' })),
    items: Type.Optional(
      Type.Array(
        Type.Object(
          {
            source: text('Where the item came from; only approved sources are taken in (others are refused with a reason).', { maxLength: 100 }),
            id: text('The item’s id within its source; with the source it makes the idempotency key.', { maxLength: 100 }),
            requestedOutcome: text('What the work cycle should achieve.', { maxLength: 500 }),
          },
          { additionalProperties: true, description: 'One intake item (priority, createdAt, projectRoot, maxSteps and provenance are optional).' },
        ),
        { maxItems: 200, description: 'Items to take in.' },
      ),
    ),
  }, { batchSize: 5, items: [{ source: 'operator', id: 'req-1', requestedOutcome: 'Find why the export test fails on Mondays' }] }),
  resultSchema: handlerResult('Autonomous intake cycle result.', {}),
});
