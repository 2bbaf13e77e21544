import Type from 'typebox';
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
  plannerSafe: true,
  scopeFields: ['scope'],
  payloadSchema: payloadSchema('Read-only compliance review.', { scope: postureScope('to review') }, { scope: 'projects/app' }),
  resultSchema: laneResult('Compliance review result: checks and a posture.', {
    posture: Type.Optional(Type.String({ description: 'clear, watching or blocked.' })),
    checks: Type.Optional(
      Type.Array(Type.Object({ check: Type.String(), status: Type.String(), evidence: Type.String() }, { additionalProperties: true })),
    ),
  }),
  resultView: {
    verdict: '/posture',
    findings: { caption: 'Compliance checks', items: '/checks', severity: '/status', rule: '/check', message: '/evidence' },
  },
  skills: ['workspace-read', 'license-scan', 'dependency-license-lookup'],
  model: { keepsContentLocal: true },
});
