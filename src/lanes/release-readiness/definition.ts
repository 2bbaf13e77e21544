import Type from 'typebox';
import { defineTaskType } from '../../task-types/define-task-type.js';
import { laneResult, payloadSchema, postureScope } from '../../task-types/schema-kit.js';

/** The release-readiness task type: its catalog facts, payload and result contracts and the skills its lane uses. */
export const releaseReadinessType = defineTaskType({
  type: 'release-readiness',
  label: 'Release readiness',
  purpose: 'Gives a go/hold/block posture for a release; never deploys.',
  agentId: 'release-manager-agent',
  executor: 'worker',
  toolGatePreflight: true,
  retryable: true,
  plannerSafe: true,
  scopeFields: ['scope'],
  readsControlPlane: true,
  payloadSchema: payloadSchema(
    'Release posture (go/hold/block).',
    { scope: Type.Optional(postureScope('of the release candidate; without it only the control plane is judged')) },
    { scope: 'projects/app' },
  ),
  resultSchema: laneResult('Release readiness result: gates and a go/hold/block posture.', {
    posture: Type.Optional(Type.String({ description: 'go, hold or block.' })),
    gates: Type.Optional(Type.Array(Type.Object({ gate: Type.String(), status: Type.String(), evidence: Type.String() }, { additionalProperties: true }))),
  }),
  resultView: {
    gates: { items: '/gates', posture: '/posture', gate: '/gate', status: '/status', evidence: '/evidence' },
  },
  // Reads the snapshot gates and the repository (JUnit reports) under an optional scope.
  skills: ['workspace-read', 'state-read', 'incident-read'],
});
