import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, text } from '../../task-types/schema-kit.js';

/** The drift-repair task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const driftRepairType = defineTaskType({
  type: 'drift-repair',
  label: 'Drift repair',
  purpose: 'Audits drifted docs and regenerates the knowledge pack with repair evidence, an operator summary and next actions.',
  agentId: 'doc-specialist',
  executor: 'worker',
  retryable: true,
  scopeFields: ['paths'],
  remediation: true,
  dependencyRequirements: ['readable docsPath', 'writable knowledgePackDir'],
  caveats: ['Writes a new knowledge pack version whether or not drift was found; the run fails when the pack does not verify.'],
  payloadSchema: payloadSchema('Repair drifted docs and regenerate the knowledge pack.', {
    requestedBy: Type.Optional(text('Who or what asked for the repair (informational; identity comes from the key).', { maxLength: 200 })),
    paths: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 1024, description: 'Doc path relative to docsPath.' }), {
        maxItems: 500,
        description: 'Doc paths to audit, relative to docsPath; they may not climb out of the workspace.',
      }),
    ),
    notes: Type.Optional(text('Free-form notes for the repair record.', { maxLength: 2000 })),
  }, { requestedBy: 'operator', notes: 'Re-pack the knowledge after the docs review' }),
  resultSchema: laneResult('Drift repair result.', {}),
  resultView: { artifacts: [{ label: 'knowledge pack', value: '/knowledgePackPath' }] },
});
