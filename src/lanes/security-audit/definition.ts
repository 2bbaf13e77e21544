import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, nullable, payloadSchema, postureScope } from '../../task-types/schema-kit.js';

/** The security-audit task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const securityAuditType = defineTaskType({
  type: 'security-audit',
  label: 'Security audit',
  purpose: 'Scans a scoped path for secrets, risky code and dependency findings, ranked by exploitability.',
  agentId: 'security-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  scopeFields: ['scope'],
  payloadSchema: payloadSchema('Security scan of a scoped path.', {
    type: Type.Optional(Type.Enum(['scan', 'secrets', 'code', 'deps'], { description: 'Kind of audit (default scan).' })),
    scope: postureScope('to audit'),
  }, { type: 'scan', scope: 'projects/app' }),
  resultSchema: laneResult('Security audit result: findings ranked by exploitability.', {
    findings: Type.Optional(
      Type.Array(
        Type.Object(
          {
            rule: Type.String(),
            severity: Type.String(),
            file: Type.String({ description: 'Workspace-relative path.' }),
            line: nullable(Type.Integer({ description: '1-based; null for findings about the file itself.' })),
            evidence: Type.String({ description: 'What matched, a secret value masked.' }),
          },
          { additionalProperties: true },
        ),
      ),
    ),
    exploitabilityRanking: Type.Optional(Type.Array(Type.Object({}, { additionalProperties: true }))),
  }),
  resultView: {
    findings: { caption: 'Security findings', items: '/findings', severity: '/severity', rule: '/rule', file: '/file', line: '/line', message: '/evidence' },
  },
  skills: ['workspace-read', 'secret-scan', 'code-pattern-scan', 'dependency-audit', 'file-permission-audit'],
  model: { keepsContentLocal: true },
});
