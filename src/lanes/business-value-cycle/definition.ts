import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The business-value-cycle task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const businessValueCycleType = defineTaskType({
  type: 'business-value-cycle',
  label: 'Business value cycle',
  purpose: 'Ranks bounded candidates from the business registry and enqueues at most one safe internal worker task.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['business registry file (businessRegistryPath, schema 2.0.1)', 'the allowlisted worker lane of the selected candidate'],
  caveats: [
    'Never authorizes outreach, publishing, deployment, secret access or commercial commitments: such candidates are only listed as approval-gated.',
    'A direct trigger passes the same gate as POST /api/business/cycle/trigger (active, cooldown, paused, disabled, backoff); a refused one fails its run with the decision.',
  ],
  retryable: false,
  payloadSchema: payloadSchema(
    'Bounded business planner cycle.',
    { reason: Type.Optional(text('Why the cycle was triggered.', { maxLength: 500 })) },
    { reason: 'Weekly review of the business registry' },
  ),
  resultSchema: handlerResult('Business value cycle result.', {}),
});
