import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema } from '../../task-types/schema-kit.js';

/** The doc-change task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const docChangeType = defineTaskType({
  type: 'doc-change',
  label: 'Doc change',
  purpose: 'Buffers changed doc paths, refreshes the knowledge index and admits a drift-repair at the threshold (25 pending paths).',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['writable logsDir (the buffer file)'],
  caveats: ['At 25 pending paths the repair loop admits at most one drift-repair per doc set, under the doc-repair lock and a cooldown.'],
  retryable: false,
  internalOnly: true,
  payloadSchema: payloadSchema('Internal: changed doc paths relative to docsPath.', {
    paths: Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), {
      maxItems: 1000,
      description: 'Changed doc paths relative to docsPath.',
    }),
  }),
  resultSchema: handlerResult('Doc change result.', {}),
});
