import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The incident-triage task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const incidentTriageType = defineTaskType({
  type: 'incident-triage',
  label: 'Incident triage',
  purpose: 'Ranks the open incident queue.',
  agentId: 'system-monitor-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  readsControlPlane: true,
  payloadSchema: payloadSchema('No fields: ranks the open incidents.', {}),
  resultSchema: laneResult('Incident triage result.', {
    posture: Type.Optional(Type.String()),
  }),
  resultView: { verdict: '/posture' },
  skills: ['state-read', 'queue-read', 'incident-read'],
});
