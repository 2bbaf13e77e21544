import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema } from '../../task-types/schema-kit.js';

const INTEGRATION_STEP = Type.Union(
  [
    Type.String({ minLength: 1, maxLength: 500, description: "Shorthand '<task-type>: <description>'." }),
    Type.Object(
      {
        type: Type.String({ minLength: 1, description: 'Task type of the step.' }),
        payload: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'Payload of the step.' })),
        description: Type.Optional(Type.String({ maxLength: 500, description: 'What the step is for.' })),
        reroute: Type.Optional(
          Type.String({ minLength: 1, description: 'Task type run when this step fails (default incident-triage).' }),
        ),
      },
      { additionalProperties: false, description: 'Explicit step.' },
    ),
  ],
  { description: "A step: shorthand string '<task-type>: <description>' or {type, payload?, description?}." },
);

/** The integration-workflow task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const integrationWorkflowType = defineTaskType({
  type: 'integration-workflow',
  label: 'Integration workflow',
  purpose: 'Runs a short workflow of task steps (shorthand `<task-type>: <description>` or objects) as child runs.',
  agentId: 'integration-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  caveats: [
    'Steps run one after another as child runs admitted by the service; a failed step is rerouted (default incident-triage) and the steps after it are skipped.',
  ],
  payloadSchema: payloadSchema('Run a short workflow of task steps; empty falls back to the default workflow.', {
    steps: Type.Optional(Type.Array(INTEGRATION_STEP, { maxItems: 25, description: 'Workflow steps in order.' })),
  }, { steps: ['system-monitor: check service health', 'incident-triage: rank what is failing'] }),
  resultSchema: laneResult('Integration workflow result.', {}),
  // The worker plans the steps; the service admits each as a child run and reads its outcome.
  skills: ['task-admit', 'state-read'],
});
