import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The nightly-batch task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const nightlyBatchType = defineTaskType({
  type: 'nightly-batch',
  label: 'Nightly batch',
  purpose: 'Selects high-urgency RSS drafts for community-response and raises manual-review and promotion approvals.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['rssDrafts in state (written by rss-sweep)'],
  caveats: [
    'Also runs from cron (nightlyBatchCron).',
    'Review leads are held as community-response approvals; only an approved one is drafted, through its replay.',
  ],
  retryable: true,
  // Fired by the scheduler on config nightlyBatchCron (src/scheduler/scheduler.ts).
  builtInSchedule: { cronSetting: 'nightlyBatchCron' },
  payloadSchema: payloadSchema('No fields: works over the RSS drafts in state.', {}),
  resultSchema: handlerResult('Nightly batch result.', {}),
});
