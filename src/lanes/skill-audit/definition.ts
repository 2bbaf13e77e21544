import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The skill-audit task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const skillAuditType = defineTaskType({
  type: 'skill-audit',
  label: 'Skill audit',
  purpose: 'Audits an agent’s allowed skills and governance depth.',
  agentId: 'skill-audit-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  readsControlPlane: true,
  payloadSchema: payloadSchema(
    'Audit allowed skills.',
    { agentId: Type.Optional(text('Agent to audit (default all).', { minLength: 1, maxLength: 100 })) },
    { agentId: 'summarization-agent' },
  ),
  resultSchema: laneResult('Skill audit result.', {
    posture: Type.Optional(Type.String()),
  }),
  resultView: { verdict: '/posture' },
  skills: ['agent-registry-read', 'skill-registry-read'],
  model: { keepsContentLocal: true },
});
