import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The doc-sync task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const docSyncType = defineTaskType({
  type: 'doc-sync',
  label: 'Doc sync',
  purpose: 'Hashes the docs folder, detects changes against the previous index and regenerates the knowledge pack when needed.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['readable docsPath (markdown and text files)', 'writable logsDir and knowledgePackDir'],
  caveats: [
    'The knowledge pack is generated in-process; drift-repair is the doc-specialist lane that audits and repairs.',
    'Indexes at most 5,000 files of at most 1 MiB each; larger files are skipped and counted.',
  ],
  retryable: true,
  // What a fast start queues to index the docs (src/lanes/startup/handler.ts).
  roles: ['indexes-docs'],
  payloadSchema: payloadSchema('No fields: the docs folder comes from the service configuration.', {}),
  resultSchema: handlerResult('Doc sync result.', {}),
});
