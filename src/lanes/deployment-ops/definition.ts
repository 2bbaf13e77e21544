import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The deployment-ops task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const deploymentOpsType = defineTaskType({
  type: 'deployment-ops',
  label: 'Deployment ops',
  purpose: 'Gives a ready/watch/blocked deployment posture; never deploys or restarts.',
  agentId: 'deployment-ops-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  highRiskWhenApproved: true,
  readsControlPlane: true,
  payloadSchema: payloadSchema('No fields: deployment posture (ready/watch/blocked).', {}),
  resultSchema: laneResult('Deployment ops result.', {
    posture: Type.Optional(Type.String({ description: 'ready, watch or blocked.' })),
  }),
  resultView: { verdict: '/posture' },
  skills: ['state-read', 'queue-read', 'approval-read', 'incident-read'],
});
