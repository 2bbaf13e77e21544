import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, nullable, payloadSchema, workspacePath } from '../../task-types/schema-kit.js';

/** The qa-verification task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const qaVerificationType = defineTaskType({
  type: 'qa-verification',
  label: 'QA verification',
  purpose: 'Plans (dry-run) or executes a verification suite against a workspace target.',
  agentId: 'qa-verification-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  // The incidents module's verifier of a remediation (src/incidents/record.ts).
  roles: ['verifies-incidents'],
  scopeFields: ['target'],
  remediation: true,
  payloadSchema: payloadSchema('Plan or execute a verification suite.', {
    target: workspacePath('Directory or file under test.'),
    suite: Type.Optional(
      Type.String({
        pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$',
        description:
          'Suite name, e.g. smoke: it runs the npm script test:<suite> (else test), so it stays a plain word: letters, digits, ".", "_", "-"; up to 64 (default full).',
      }),
    ),
    mode: Type.Optional(Type.Enum(['dry-run', 'execute'], { description: 'dry-run plans only; execute runs the suite (default dry-run).' })),
    timeoutMs: Type.Optional(
      Type.Integer({
        minimum: 1_000,
        maximum: 540_000,
        description: "How long the suite may run in execute mode, in milliseconds (default 120000); below the agent's own worker timeout.",
      }),
    ),
  }, { target: 'projects/app', suite: 'smoke', mode: 'dry-run' }),
  resultSchema: laneResult('QA verification result: the plan, and in execute mode the counts and failures.', {
    mode: Type.Optional(Type.String({ description: 'dry-run or execute.' })),
    verdict: Type.Optional(Type.String()),
    passed: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    failed: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    skipped: Type.Optional(nullable(Type.Integer({ minimum: 0 }))),
    plan: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
    failures: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  }),
  resultView: {
    tests: {
      verdict: { first: [{ pointer: '/mode', pattern: '^dry-run$', value: 'planned (dry run)' }, '/verdict'] },
      passed: '/passed',
      failed: '/failed',
      skipped: '/skipped',
      failures: { items: '/failures', name: '/name', where: '/file', message: '/message' },
      note: {
        first: [
          { pointer: '/mode', pattern: '^dry-run$', value: 'The suite was not run: a dry run only plans it.' },
          { join: [{ pointer: '/runner', prefix: 'runner ' }, { pointer: '/exitCode', prefix: 'exit code ' }], separator: ', ' },
        ],
      },
      outputTail: '/outputTail',
    },
  },
  skills: ['workspace-read', 'test-runner'],
});
