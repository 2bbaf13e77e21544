import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The send-digest task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const sendDigestType = defineTaskType({
  type: 'send-digest',
  label: 'Send digest',
  purpose: 'Posts a JSON digest of recent task history and high-urgency drafts to the configured notification target.',
  agentId: null,
  executor: 'handler',
  operationalStatus: 'externally-dependent',
  dependencyClass: 'external',
  baselineConfidence: 'medium',
  dependencyRequirements: [
    'digestTargetUrl (HTTP or HTTPS endpoint accepting a JSON POST) and/or digestTargetFile (JSONL outbox)',
    'outbound network access to the webhook target',
  ],
  caveats: ['Without a target, or when a target refuses, is unreachable or cannot be written, the run fails with the cause.'],
  retryable: true,
  highRiskWhenApproved: true,
  payloadSchema: payloadSchema('Digest delivery to config digestTargetUrl.', {
    historyLimit: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 50, description: 'How many recent task-history entries to include (default 20).' }),
    ),
  }, { historyLimit: 20 }),
  resultSchema: handlerResult('Send digest result.', {}),
});
