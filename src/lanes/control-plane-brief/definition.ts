import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The control-plane-brief task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const controlPlaneBriefType = defineTaskType({
  type: 'control-plane-brief',
  label: 'Control-plane brief',
  purpose: 'Fuses queue, approval, incident, service and proof truth into an operator brief.',
  agentId: 'operations-analyst-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  readsControlPlane: true,
  payloadSchema: payloadSchema('No fields: reads the control plane’s own state.', {}),
  resultSchema: laneResult('Control-plane brief result.', {
    posture: Type.Optional(Type.String()),
  }),
  resultView: { verdict: '/posture' },
  // Control-plane lanes judge the orchestrator from the snapshot the executor hands them.
  skills: ['state-read', 'queue-read', 'approval-read', 'incident-read', 'proof-read'],
});
