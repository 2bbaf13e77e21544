import { controlPlaneOf } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { deploymentFindings, type DeploymentFinding } from './deployment-findings.js';

export type DeploymentPosture = 'ready' | 'watch' | 'blocked';

export type DeploymentOpsSuccess = LaneResult<{
  success: true;
  posture: DeploymentPosture;
  blockers: DeploymentFinding[];
  watchItems: DeploymentFinding[];
  services: Array<{ agentId: string; serviceUnitName: string | null; entrypointAvailable: boolean; probe: 'probe unavailable' }>;
  runtime: { stateStore: string; coordination: string; concurrency: number; uptimeSeconds: number; pid: number };
  /** The lane only reads: it never deploys, restarts or reconfigures. */
  actionsTaken: [];
  snapshotAt: string;
}>;

const IDENTITY = { role: 'deployment-ops-agent', workflowStage: 'deployment-assessment', deliverable: 'deployment posture' };

function actionFor(f: DeploymentFinding): string {
  switch (f.code) {
    case 'deploy-lane-failing':
      return `Fix the failing ${String(f.evidence.type)} runs before any deployment change.`;
    case 'service-not-spawnable':
      return `Build or restore the entrypoint of ${String(f.evidence.agentId)} (npm run build).`;
    case 'critical-incident':
      return `Resolve critical incident ${String(f.evidence.incidentId)} first.`;
    case 'queue-saturated':
    case 'queue-pressure':
      return 'Let the queue drain (or raise concurrency) before rolling out.';
    case 'deploy-approval-pending':
      return `Decide the pending ${String(f.evidence.type)} approval ${String(f.evidence.taskId)}.`;
    default:
      return `Check: ${f.detail}.`;
  }
}

/**
 * The deployment-ops lane: a ready/watch/blocked posture from the service's snapshot (failing
 * deploy-related lanes, unspawnable services, incidents, queue pressure, pending deploy
 * approvals; rules in deployment-findings.ts). Any blocker blocks; any watch item watches.
 */
export function deploymentOps(payload: LanePayload<'deployment-ops'>): DeploymentOpsSuccess | LaneRefusal {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) {
    return refuseLane(
      IDENTITY,
      'the payload carries no control-plane snapshot (__controlPlane): the posture is judged from the snapshot the service sends',
      ['Trigger deployment-ops through the service, which attaches the snapshot.'],
    );
  }
  const { blockers, watchItems } = deploymentFindings(snapshot);
  const posture: DeploymentPosture = blockers.length > 0 ? 'blocked' : watchItems.length > 0 ? 'watch' : 'ready';
  const actions = [...new Set([...blockers, ...watchItems].map(actionFor))];
  return {
    success: true,
    posture,
    blockers,
    watchItems,
    services: snapshot.agents
      .filter((a) => a.serviceExpected)
      .map((a) => ({ agentId: a.id, serviceUnitName: a.serviceUnitName, entrypointAvailable: a.entrypointAvailable, probe: 'probe unavailable' as const })),
    runtime: {
      stateStore: snapshot.service.stateStore,
      coordination: snapshot.service.coordination,
      concurrency: snapshot.service.concurrency,
      uptimeSeconds: snapshot.service.uptimeSeconds,
      pid: snapshot.service.pid,
    },
    actionsTaken: [],
    snapshotAt: snapshot.generatedAt,
    operatorSummary:
      posture === 'ready'
        ? `Deployment ready: no failing deploy-related lane, no pending deploy approval, queue within limits (${snapshot.queue.queued} queued). Nothing was deployed or restarted.`
        : `Deployment ${posture}: ${blockers.length} blocker(s), ${watchItems.length} watch item(s); first: ${(blockers[0] ?? watchItems[0])!.detail}. Nothing was deployed or restarted.`,
    recommendedNextActions: actions.length ? actions : ['Proceed with the planned change through the approval path; run deployment-ops again after it.'],
    specialistContract: specialistContract({ ...IDENTITY, status: 'completed' }),
  };
}
