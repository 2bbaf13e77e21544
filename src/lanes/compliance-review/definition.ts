import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, postureScope } from '../../task-types/schema-kit.js';

/** The compliance-review task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const complianceReviewType = defineTaskType({
  type: 'compliance-review',
  label: 'Compliance review',
  purpose: 'Read-only compliance review of a scoped path with a clear/watching/blocked posture.',
  agentId: 'compliance-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  scopeFields: ['scope'],
  payloadSchema: payloadSchema('Read-only compliance review.', { scope: postureScope('to review') }, { scope: 'projects/app' }),
  resultSchema: laneResult('Compliance review result.', {}),
  skills: ['workspace-read', 'license-scan', 'dependency-license-lookup'],
  model: { keepsContentLocal: true },
});
