import { runSlotsOf, type ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';

/** One reason the deployment is blocked or needs watching, with the evidence behind it. */
export interface DeploymentFinding {
  code: string;
  detail: string;
  evidence: Record<string, string | number | boolean | null>;
}

/** Task types whose outcome says whether a deployment change is safe. */
export const DEPLOY_RELATED_TYPES = ['agent-deploy', 'build-refactor', 'qa-verification', 'release-readiness'] as const;
/** Types whose pending approval is a deployment change waiting for a decision. */
export const GATED_DEPLOY_TYPES = ['agent-deploy', 'build-refactor'] as const;

/**
 * The rules, blockers first:
 * - blocker: a deploy-related type with at least 2 failures that failed at least half its
 *   finished runs in the window;
 * - blocker: an open critical incident;
 * - blocker: more runs waiting than 25 × the run slots (runSlotsOf; the queue would not absorb a rollout);
 * - watch: a pending approval of agent-deploy or build-refactor;
 * - watch: any other failure of a deploy-related type in the window;
 * - watch: more runs waiting than 10 × the run slots, or runs waiting for a retry;
 * - watch: an open warning incident;
 * - watch: a service-expected agent without a runnable entrypoint (its lanes fail until built).
 * A service's unit cannot be probed from a worker: that is reported as unknown in `services`,
 * never counted for or against the posture.
 */
export const RULES = {
  failingMinFailures: 2,
  failingMinRate: 0.5,
  queueWatchPerSlot: 10,
  queueBlockPerSlot: 25,
} as const;

const isDeployRelated = (type: string) => (DEPLOY_RELATED_TYPES as readonly string[]).includes(type);

export function deploymentFindings(s: ControlPlaneSnapshot): { blockers: DeploymentFinding[]; watchItems: DeploymentFinding[] } {
  const blockers: DeploymentFinding[] = [];
  const watchItems: DeploymentFinding[] = [];

  for (const t of s.runs.byType.filter((f) => isDeployRelated(f.type) && f.failed > 0)) {
    const finished = t.success + t.failed;
    const lastError = s.runs.recent.find((r) => r.type === t.type && r.error !== null)?.error ?? null;
    const finding = {
      code: 'deploy-lane-failing',
      detail: `${t.type}: ${t.failed} of ${finished} finished runs failed (${Math.round(t.failureRate * 100)}%)`,
      evidence: { type: t.type, failed: t.failed, finished, failureRate: t.failureRate, lastError: lastError?.slice(0, 200) ?? null },
    };
    if (t.failed >= RULES.failingMinFailures && t.failureRate >= RULES.failingMinRate) blockers.push(finding);
    else watchItems.push({ ...finding, code: 'deploy-lane-failure' });
  }

  for (const a of s.agents.filter((agent) => agent.serviceExpected && !agent.entrypointAvailable)) {
    watchItems.push({
      code: 'service-not-spawnable',
      detail: `service-expected agent ${a.id} (${a.serviceUnitName ?? 'no unit'}) has no runnable entrypoint: its lanes fail until it is built`,
      evidence: { agentId: a.id, serviceUnitName: a.serviceUnitName, entrypointAvailable: false },
    });
  }

  for (const i of s.incidents.filter((incident) => incident.status !== 'resolved' && incident.severity !== 'info')) {
    const target = i.severity === 'critical' ? blockers : watchItems;
    target.push({
      code: i.severity === 'critical' ? 'critical-incident' : 'open-incident',
      detail: `${i.severity} ${i.classification} incident open: ${i.title}`,
      evidence: { incidentId: i.id, severity: i.severity, status: i.status, acknowledged: i.acknowledged },
    });
  }

  const waiting = s.queue.queued + s.queue.retrying;
  const { slots, basis } = runSlotsOf(s);
  const queueEvidence = { queued: s.queue.queued, retrying: s.queue.retrying, processing: s.queue.processing, concurrency: s.service.concurrency, runSlots: slots };
  if (waiting > RULES.queueBlockPerSlot * slots) {
    blockers.push({ code: 'queue-saturated', detail: `${waiting} runs waiting, above ${RULES.queueBlockPerSlot} × ${basis}`, evidence: queueEvidence });
  } else if (waiting > RULES.queueWatchPerSlot * slots) {
    watchItems.push({ code: 'queue-pressure', detail: `${waiting} runs waiting, above ${RULES.queueWatchPerSlot} × ${basis}`, evidence: queueEvidence });
  } else if (s.queue.retrying > 0) {
    watchItems.push({ code: 'runs-retrying', detail: `${s.queue.retrying} runs waiting for an automatic retry`, evidence: queueEvidence });
  }

  for (const a of s.approvals.items.filter((item) => (GATED_DEPLOY_TYPES as readonly string[]).includes(item.type))) {
    watchItems.push({
      code: 'deploy-approval-pending',
      detail: `${a.type} ${a.taskId} awaits an approval decision since ${a.requestedAt}`,
      evidence: { taskId: a.taskId, runId: a.runId, type: a.type, requestedAt: a.requestedAt },
    });
  }
  return { blockers, watchItems };
}
