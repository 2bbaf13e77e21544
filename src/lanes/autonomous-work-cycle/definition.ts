import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { WORK_CHAIN_ID_PATTERN, handlerResult, payloadSchema, text, workspacePath } from '../../task-types/schema-kit.js';

/** The autonomous-work-cycle task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const autonomousWorkCycleType = defineTaskType({
  type: 'autonomous-work-cycle',
  label: 'Autonomous work cycle',
  purpose: 'Pursues a requested outcome through tool-gated coding inspection, stopping for approval at every mutation boundary.',
  agentId: null,
  toolGatePreflight: true,
  executor: 'handler',
  baselineConfidence: 'medium',
  dependencyRequirements: ['coding-audit (read-only) and workspace-read in the skill registry', 'writable logsDir (checkpoints and invocation evidence)'],
  caveats: [
    'Mutation, secret, install, restart, deployment, migration, commit, push and merge steps stop for approval; an approved step is handed to its owner, never performed by the cycle.',
  ],
  retryable: false,
  scopeFields: ['projectRoot'],
  payloadSchema: payloadSchema('Tool-gated pursuit of one requested outcome.', {
    requestedOutcome: text('What the cycle should achieve, concisely.', { minLength: 1, maxLength: 500 }),
    projectRoot: Type.Optional(workspacePath('Project directory the cycle works in.')),
    maxSteps: Type.Optional(Type.Integer({ minimum: 1, maximum: 25, description: 'Step budget (default 8).' })),
    workChainId: Type.Optional(
      Type.String({
        pattern: WORK_CHAIN_ID_PATTERN,
        description:
          'The work chain this run continues (its evidence folder): a name of letters, digits, ".", "_", "-" starting with a letter or digit, at most 100. Only the actor who started the chain, or an admin, may continue it.',
      }),
    ),
  }, { requestedOutcome: 'Find why the export test fails on Mondays', projectRoot: 'projects/app', maxSteps: 8 }),
  resultSchema: handlerResult('Autonomous work cycle result.', {}),
  skills: ['workspace-read', 'coding-audit'],
});
