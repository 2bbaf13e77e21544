import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { handlerResult, payloadSchema, text, workspacePath } from '../../task-types/schema-kit.js';

/** The deployment's target: its directory prefix under deployBaseDir. */
const DEPLOY_NAME = Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'Deployment directory prefix (default agentName).' });
const VERSION = text('Version recorded in the deployment metadata.', { maxLength: 100 });

/** The agent-deploy task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const agentDeployType = defineTaskType({
  type: 'agent-deploy',
  label: 'Agent deploy',
  purpose: 'Copies an agent template into a new deployment directory, writes DEPLOYMENT.json and records the deployment.',
  agentId: null,
  executor: 'handler',
  dependencyRequirements: ['template directory under agentsDir (or a workspace-relative templatePath)', 'writable deployBaseDir'],
  caveats: [
    'Approval-gated by default.',
    'Copies files only: it does not install, start or register the deployed agent as a service.',
  ],
  // Every attempt creates a new timestamped directory; a repeat would deploy twice.
  retryable: false,
  scopeFields: ['templatePath'],
  approvalGated: true,
  highRiskWhenApproved: true,
  affectedSurfaces: ['deployments'],
  payloadSchema: payloadSchema('Copy an agent template into a new deployment directory; approval-gated by default.', {
    agentName: Type.String({ pattern: '^[a-z0-9-]{1,64}$', description: 'Template name: a directory under agentsDir.' }),
    templatePath: Type.Optional(workspacePath('Template directory to use instead of <agentsDir>/<agentName>.')),
    deployName: Type.Optional(DEPLOY_NAME),
    version: Type.Optional(VERSION),
    tags: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50, description: 'Tags recorded in the metadata.' }),
    ),
    config: Type.Optional(
      Type.Object({}, { additionalProperties: true, description: 'Configuration recorded in the metadata.' }),
    ),
  }, { agentName: 'summarization-agent', version: '1.0.0' }),
  resultSchema: handlerResult('Agent deploy result.', {}),
  // The approver picks where the approved deploy lands and the version it is recorded as.
  approvalInputSchema: Type.Object(
    {
      deployName: Type.Optional(DEPLOY_NAME),
      version: Type.Optional(VERSION),
    },
    { additionalProperties: false, description: 'What an approver may set on the approved deploy: its target and version.' },
  ),
});
