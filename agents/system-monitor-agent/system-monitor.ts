import { displayPath } from '../../src/common/display-path.js';
import { controlPlaneOf, type ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneContext, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import {
  failureChecks,
  hostChecks,
  postureOf,
  queueCheck,
  serviceChecks,
  type HealthCheck,
  type HealthPosture,
} from './health-checks.js';
import { readHostFigures, type HostFigures } from './host-figures.js';
import { MONITOR_IDENTITY, NO_SNAPSHOT_REASON } from './identity.js';

/** The check types of the system-monitor schema; what each looks at is in checksFor (`health` is all of it). */
export type CheckType = NonNullable<LanePayload<'system-monitor'>['type']>;

export type SystemMonitorSuccess = LaneResult<{
  success: true;
  checkType: CheckType;
  posture: HealthPosture;
  checks: HealthCheck[];
  host: HostFigures;
  queue: ControlPlaneSnapshot['queue'] & { approvalsPending: number };
  failureRates: Array<{ type: string; finished: number; failed: number; failureRate: number }>;
  services: Array<{ agentId: string; serviceUnitName: string | null; entrypointAvailable: boolean; probe: string }>;
  observedAt: string;
  snapshotAt: string;
}>;

function checksFor(type: CheckType, host: HostFigures, snapshot: ControlPlaneSnapshot): HealthCheck[] {
  const checks: HealthCheck[] = [];
  if (type === 'health' || type === 'resources') checks.push(...hostChecks(host));
  if (type === 'health' || type === 'queue') checks.push(queueCheck(snapshot), ...failureChecks(snapshot));
  if (type === 'health' || type === 'services') checks.push(...serviceChecks(snapshot));
  return checks;
}

function nextActions(checks: HealthCheck[]): string[] {
  const actions: string[] = [];
  for (const c of checks) {
    if (c.status === 'ok' || c.status === 'unknown') continue;
    if (c.name === 'memory') actions.push('Free memory on the host or move work elsewhere: free memory is below the threshold.');
    else if (c.name === 'load') actions.push('Lower ORCHESTRATOR_CONCURRENCY or add CPU: the host is loaded beyond its CPUs.');
    else if (c.name === 'disk') actions.push('Free disk space on the state folder before writes start to fail.');
    else if (c.name === 'queue') actions.push('Raise concurrency or pause triggers: the queue grows faster than it drains.');
    else if (c.name.startsWith('failure-rate')) actions.push(`Read the failed runs behind ${c.name} (GET /api/tasks/runs?status=failed) and run incident-triage.`);
    else if (c.name.startsWith('service:')) actions.push(`Build or restore the entrypoint of ${c.name.slice('service:'.length)} (npm run build).`);
  }
  if (actions.length === 0) actions.push('Nothing to do now; run system-monitor again after load changes.');
  return [...new Set(actions)];
}

/**
 * The system-monitor lane: the host's figures read from the OS in this worker, plus queue,
 * failure and service evidence from the service's control-plane snapshot, judged against the
 * thresholds in health-checks.ts into a healthy/degraded/critical posture.
 */
export async function systemMonitor(
  payload: LanePayload<'system-monitor'>,
  context: LaneContext,
): Promise<SystemMonitorSuccess | LaneRefusal> {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) return refuseLane(MONITOR_IDENTITY, NO_SNAPSHOT_REASON, ['Trigger system-monitor through the service, which attaches the snapshot.']);
  const type: CheckType = payload.type ?? 'health';
  const diskFolder = snapshot.service.stateDirectory ?? context.workspaceRoot;
  const host = await readHostFigures(diskFolder, displayPath(diskFolder, { workspaceRoot: context.workspaceRoot }));
  const checks = checksFor(type, host, snapshot);
  const posture = postureOf(checks);
  const flagged = checks.filter((c) => c.status === 'degraded' || c.status === 'critical');
  const gib = (bytes: number) => (bytes / 1024 ** 3).toFixed(1);
  return {
    success: true,
    checkType: type,
    posture,
    checks,
    host,
    queue: { ...snapshot.queue, approvalsPending: snapshot.approvals.pendingCount },
    failureRates: snapshot.runs.byType.map((t) => ({
      type: t.type,
      finished: t.success + t.failed,
      failed: t.failed,
      failureRate: t.failureRate,
    })),
    services: snapshot.agents
      .filter((a) => a.serviceExpected)
      .map((a) => ({ agentId: a.id, serviceUnitName: a.serviceUnitName, entrypointAvailable: a.entrypointAvailable, probe: 'probe unavailable' })),
    observedAt: new Date().toISOString(),
    snapshotAt: snapshot.generatedAt,
    operatorSummary:
      `System ${posture} (${type} check): ${gib(host.memory.freeBytes)} of ${gib(host.memory.totalBytes)} GiB memory free, ` +
      `load ${host.load.one.toFixed(2)} on ${host.load.cpuCount} CPUs, ` +
      `${host.disk.error === null ? `${Math.round(host.disk.freeRatio * 100)}% disk free` : 'disk unreadable'}, ` +
      `${snapshot.queue.queued} queued; ${flagged.length === 0 ? 'no check over its threshold' : `over threshold: ${flagged.map((c) => c.name).join(', ')}`}.`,
    recommendedNextActions: nextActions(checks),
    specialistContract: specialistContract({ ...MONITOR_IDENTITY, status: 'completed' }),
  };
}
