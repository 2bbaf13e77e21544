import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The system-monitor task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const systemMonitorType = defineTaskType({
  type: 'system-monitor',
  label: 'System monitor',
  purpose: 'Checks service health and reports a posture with its evidence.',
  agentId: 'system-monitor-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  remediation: true,
  readsControlPlane: true,
  payloadSchema: payloadSchema(
    'Service health check.',
    {
      type: Type.Optional(
        Type.Enum(['health', 'resources', 'queue', 'services'], {
          description: 'Which checks run: health (all of them), resources (host), queue or services (default health).',
        }),
      ),
    },
    { type: 'health' },
  ),
  resultSchema: laneResult('System monitor result.', {
    posture: Type.Optional(Type.String()),
  }),
  resultView: { verdict: '/posture' },
  skills: ['state-read', 'queue-read', 'incident-read', 'host-metrics-read'],
});
