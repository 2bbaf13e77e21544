import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The startup task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const startupType = defineTaskType({
  type: 'startup',
  label: 'Startup',
  purpose: 'Runs at every start: confirms the configuration loaded, indexes the docs folder and stamps lastStartedAt.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['readable docsPath (an absent folder indexes zero docs)'],
  caveats: ['With ORCHESTRATOR_FAST_START the docs index is skipped and a doc-sync is queued instead.'],
  retryable: false,
  internalOnly: true,
  payloadSchema: payloadSchema('Internal: no fields.', {}),
  resultSchema: handlerResult('Startup result.', {}),
});
