import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The heartbeat task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const heartbeatType = defineTaskType({
  type: 'heartbeat',
  label: 'Heartbeat',
  purpose: 'Scheduled every 5 minutes: uptime, memory use, queue depth and a healthy/degraded verdict.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['queue depth from the state store'],
  caveats: ['Visible on the runs route only with includeInternal=true.'],
  retryable: false,
  // Fired by the scheduler on config heartbeatCron (src/scheduler/scheduler.ts).
  builtInSchedule: { cronSetting: 'heartbeatCron' },
  internalOnly: true,
  payloadSchema: payloadSchema('Internal: no fields.', {}),
  resultSchema: handlerResult('Heartbeat result.', {}),
});
