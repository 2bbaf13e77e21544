import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, postureScope, text, workspacePath } from '../../task-types/schema-kit.js';

const CHANGE_SET = Type.Union(
  [
    Type.Object(
      {
        path: workspacePath('File to edit.'),
        search: Type.String({ minLength: 1, description: 'Exact text to find; the run fails when it is absent.' }),
        replace: Type.String({ description: 'Replacement text.' }),
      },
      { additionalProperties: false, description: 'Search-and-replace edit.' },
    ),
    Type.Object(
      {
        path: workspacePath('File to write.'),
        content: Type.String({ description: 'Full new file content.' }),
      },
      { additionalProperties: false, description: 'Whole-file write.' },
    ),
    Type.Object(
      {
        path: workspacePath('File to delete.'),
        delete: Type.Literal(true, { description: 'Must be true.' }),
      },
      { additionalProperties: false, description: 'File deletion.' },
    ),
  ],
  { description: 'One explicit change: {path, search, replace}, {path, content} or {path, delete: true}.' },
);

/** The build-refactor task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const buildRefactorType = defineTaskType({
  type: 'build-refactor',
  label: 'Build refactor',
  purpose: 'Makes real, scoped code changes in a workspace repository with optional test verification.',
  agentId: 'build-refactor-agent',
  executor: 'worker',
  toolGatePreflight: true,
  // A repeat of a partially applied change set could edit files twice.
  retryable: false,
  scopeFields: ['scope', 'changes[].path'],
  remediation: true,
  caveats: ['Approval-gated by default.'],
  approvalGated: true,
  highRiskWhenApproved: true,
  payloadSchema: payloadSchema('Scoped code change; approval-gated by default.', {
    type: Type.Optional(text('Kind of change, e.g. refactor.', { maxLength: 100 })),
    scope: postureScope('the change is confined to'),
    intent: Type.Optional(text('What the change should achieve.', { maxLength: 2000 })),
    constraints: Type.Optional(
      Type.Object(
        {
          maxFilesChanged: Type.Optional(
            Type.Integer({ minimum: 1, maximum: 50, description: 'The run fails, changing nothing, when more files would change.' }),
          ),
          runTests: Type.Optional(Type.Boolean({ description: 'Run the verification after the change.' })),
        },
        { additionalProperties: true, description: 'Bounds of the change.' },
      ),
    ),
    changes: Type.Optional(Type.Array(CHANGE_SET, { maxItems: 50, description: 'Explicit patch set.' })),
    testRunner: Type.Optional(
      Type.Object(
        {
          script: Type.String({
            pattern: '^[A-Za-z0-9:_.-]{1,100}$',
            description: 'An npm script of the target project.',
          }),
        },
        { additionalProperties: false, description: 'Whitelisted verification runner.' },
      ),
    ),
  }, {
    scope: 'projects/app',
    intent: 'Raise the request timeout',
    changes: [{ path: 'projects/app/src/config.ts', search: 'timeoutMs: 1000', replace: 'timeoutMs: 5000' }],
    constraints: { maxFilesChanged: 1, runTests: true },
  }),
  resultSchema: laneResult('Build refactor result.', {}),
  // Verification runs `npm run <testRunner.script>`: the npm-script-runner skill, not the QA test runner.
  skills: ['workspace-read', 'workspace-write', 'npm-script-runner'],
});
