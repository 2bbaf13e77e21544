import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, postureScope, workspacePath } from '../../task-types/schema-kit.js';

/** The test-intelligence task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const testIntelligenceType = defineTaskType({
  type: 'test-intelligence',
  label: 'Test intelligence',
  purpose: 'Reads test reports of a scoped repository for a ready/watching/blocked posture; never runs tests or CI.',
  agentId: 'test-intelligence-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  scopeFields: ['scope', 'reports'],
  payloadSchema: payloadSchema('Test posture from existing reports.', {
    scope: postureScope('holding the project'),
    reports: Type.Optional(
      Type.Array(workspacePath('Test report file.'), { maxItems: 50, description: 'Test report files to read; leave it out (or empty) to search the scope.' }),
    ),
  }, { scope: 'projects/app' }),
  resultSchema: laneResult('Test intelligence result: report totals, failing cases and a posture.', {
    posture: Type.Optional(Type.String({ description: 'clear, watching or blocked.' })),
    totals: Type.Optional(Type.Object({}, { additionalProperties: true, description: 'tests, failures, errors, skipped, time.' })),
    failures: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  }),
  resultView: {
    tests: {
      verdict: '/posture',
      passed: { difference: ['/totals/tests', '/totals/failures', '/totals/errors', '/totals/skipped'] },
      failed: { sum: ['/totals/failures', '/totals/errors'] },
      skipped: '/totals/skipped',
      failures: { items: '/failures', name: '/name', where: { join: [{ pointer: '/classname' }, { pointer: '/report' }], separator: ' · ' }, message: '/message' },
      note: '/postureReason',
    },
  },
  skills: ['workspace-read', 'test-report-read'],
});
