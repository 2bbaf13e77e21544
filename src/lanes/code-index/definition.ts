import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, postureScope } from '../../task-types/schema-kit.js';

/** The code-index task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const codeIndexType = defineTaskType({
  type: 'code-index',
  label: 'Code index',
  purpose: 'Read-only index of a scoped repository with a ready/refresh/blocked posture.',
  agentId: 'code-index-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  scopeFields: ['scope'],
  payloadSchema: payloadSchema(
    'Read-only code index.',
    {
      scope: postureScope('to index'),
      previousIndexAt: Type.Optional(
        Type.Union([Type.String({ minLength: 1, maxLength: 100 }), Type.Number({ minimum: 0 })], {
          description:
            "When the previous index was taken: a date (a previous result's indexedAt) or epoch milliseconds; files modified since are listed in changedSince.",
        }),
      ),
    },
    { scope: 'projects/app' },
  ),
  resultSchema: laneResult('Code index result: files, symbols, import edges and problems.', {
    posture: Type.Optional(Type.String({ description: 'ready, refresh or blocked.' })),
    problems: Type.Optional(Type.Array(Type.Object({ file: Type.String(), problem: Type.String() }, { additionalProperties: true }))),
  }),
  resultView: {
    verdict: '/posture',
    findings: {
      caption: 'Index problems',
      items: '/problems',
      severity: { const: 'warn' },
      // Problems read `line N: import "x" does not resolve (...)` or `unreadable: ...`.
      rule: { first: [{ pointer: '/problem', pattern: 'does not resolve', value: 'unresolved-import' }, { pointer: '/problem', pattern: '^([a-z-]+):' }, { const: 'problem' }] },
      file: '/file',
      line: { pointer: '/problem', pattern: '^line (\\d+): ' },
      message: { first: [{ pointer: '/problem', pattern: '^line \\d+: (.*)$' }, '/problem'] },
    },
  },
  skills: ['workspace-read', 'source-index'],
});
