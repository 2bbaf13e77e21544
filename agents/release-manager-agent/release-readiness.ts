import { controlPlaneOf } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { resolveScope, type ResolvedScope } from '../../src/worker-sdk/scope-path.js';
import { postureOf, type ReleaseGate, type ReleasePosture } from './gate.js';
import { releaseNextActions } from './next-actions.js';
import { projectGates, type ProjectEvidence } from './project-gates.js';
import { snapshotGates } from './snapshot-gates.js';

export type ReleaseReadinessSuccess = LaneResult<{
  success: true;
  posture: ReleasePosture;
  scope: string | null;
  gates: ReleaseGate[];
  project: ProjectEvidence | null;
  snapshotAt: string;
}>;

const IDENTITY = { role: 'release-manager-agent', workflowStage: 'release-gate', deliverable: 'go/hold/block release posture' };

function scopeDirectory(workspaceRoot: string, scope: string): ResolvedScope | { problem: string } {
  const resolved = resolveScope(workspaceRoot, scope);
  if ('problem' in resolved) return resolved;
  if (!resolved.stats.isDirectory()) return { problem: `scope ${JSON.stringify(scope)} is not a directory` };
  return resolved;
}

/**
 * The release-readiness lane: gates from the control plane (recent failures, pending approvals,
 * open incidents) and, with a scope, from the project (version, changelog, test script,
 * lockfile, JUnit reports); any fail blocks, any warning holds. It advises; it never tags,
 * publishes or deploys.
 */
export async function releaseReadiness(
  payload: LanePayload<'release-readiness'>,
  context: LaneContext,
): Promise<ReleaseReadinessSuccess | LaneRefusal> {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) {
    return refuseLane(
      IDENTITY,
      'the payload carries no control-plane snapshot (__controlPlane): failures, approvals and incidents come from the snapshot the service sends',
      ['Trigger release-readiness through the service, which attaches the snapshot.'],
    );
  }
  const { scope } = payload;
  const gates = snapshotGates(snapshot);
  let project: ProjectEvidence | null = null;
  if (typeof scope === 'string') {
    const folder = scopeDirectory(context.workspaceRoot, scope);
    if ('problem' in folder) return refuseLane(IDENTITY, folder.problem, ['Resend with scope naming a project folder inside the workspace.']);
    const scoped = projectGates(folder, scope, context.workspaceRoot);
    gates.push(...scoped.gates);
    project = scoped.evidence;
  }
  const posture = postureOf(gates);
  const open = gates.filter((g) => g.status !== 'pass');
  const subject = project ? `${project.name ?? scope} ${project.version ?? '(no version)'}` : 'the control plane';
  return {
    success: true,
    posture,
    scope: scope ?? null,
    gates,
    project,
    snapshotAt: snapshot.generatedAt,
    operatorSummary:
      `Release ${posture} for ${subject}: ${gates.length - open.length} of ${gates.length} gates pass` +
      (open.length ? `; ${open.map((g) => `${g.gate} ${g.status} (${g.evidence.slice(0, 120)})`).join('; ')}.` : '.') +
      (project ? '' : ' No scope given: the project itself was not checked.'),
    recommendedNextActions: releaseNextActions(gates, project, scope ?? null, subject),
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
