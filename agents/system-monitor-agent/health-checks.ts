import { runSlotsOf, type ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';
import type { HostFigures } from './host-figures.js';

export type CheckStatus = 'ok' | 'degraded' | 'critical' | 'unknown';
export type HealthPosture = 'healthy' | 'degraded' | 'critical';

export interface HealthCheck {
  name: string;
  status: CheckStatus;
  /** The observed figure the status was decided on. */
  value: number | string | null;
  /** The rule that decided the status, in words an operator can check. */
  threshold: string;
  detail: string;
}

/**
 * The thresholds, in one place so the posture can be explained:
 * - memory: free below 10% of total is degraded, below 3% critical;
 * - load: the 1-minute load per CPU above 1.5 is degraded, above 3 critical;
 * - disk of the state folder: free below 10% is degraded, below 3% critical;
 * - lane failure rate: a type with at least 4 finished runs in the window failing more than
 *   50% is degraded; all finished runs together failing more than 80% (at least 10) is critical;
 * - queue: more runs waiting (queued + retrying) than 10 × the run slots (runSlotsOf) is degraded;
 * - services: a service-expected agent that cannot be spawned (no entrypoint) is degraded.
 * A figure that cannot be read is `unknown` and does not move the posture: it is reported, not guessed.
 */
export const THRESHOLDS = {
  memoryFreeDegraded: 0.1,
  memoryFreeCritical: 0.03,
  loadPerCpuDegraded: 1.5,
  loadPerCpuCritical: 3,
  diskFreeDegraded: 0.1,
  diskFreeCritical: 0.03,
  typeFailureRateDegraded: 0.5,
  typeFailureMinFinished: 4,
  overallFailureRateCritical: 0.8,
  overallFailureMinFinished: 10,
  queuePerSlotDegraded: 10,
} as const;

const pct = (r: number) => `${Math.round(r * 1000) / 10}%`;

function below(value: number, degraded: number, critical: number): CheckStatus {
  if (value < critical) return 'critical';
  return value < degraded ? 'degraded' : 'ok';
}

export function hostChecks(host: HostFigures): HealthCheck[] {
  const memory: HealthCheck = {
    name: 'memory',
    status: below(host.memory.freeRatio, THRESHOLDS.memoryFreeDegraded, THRESHOLDS.memoryFreeCritical),
    value: host.memory.freeRatio,
    threshold: `free < ${pct(THRESHOLDS.memoryFreeDegraded)} degraded, < ${pct(THRESHOLDS.memoryFreeCritical)} critical`,
    detail: `${pct(host.memory.freeRatio)} free (${host.memory.freeBytes} of ${host.memory.totalBytes} bytes)`,
  };
  const perCpu = host.load.onePerCpu;
  const load: HealthCheck = {
    name: 'load',
    status: perCpu > THRESHOLDS.loadPerCpuCritical ? 'critical' : perCpu > THRESHOLDS.loadPerCpuDegraded ? 'degraded' : 'ok',
    value: perCpu,
    threshold: `1-minute load per CPU > ${THRESHOLDS.loadPerCpuDegraded} degraded, > ${THRESHOLDS.loadPerCpuCritical} critical`,
    detail: `load ${host.load.one.toFixed(2)}/${host.load.five.toFixed(2)}/${host.load.fifteen.toFixed(2)} on ${host.load.cpuCount} CPUs`,
  };
  const disk: HealthCheck =
    host.disk.error === null
      ? {
          name: 'disk',
          status: below(host.disk.freeRatio, THRESHOLDS.diskFreeDegraded, THRESHOLDS.diskFreeCritical),
          value: host.disk.freeRatio,
          threshold: `free < ${pct(THRESHOLDS.diskFreeDegraded)} degraded, < ${pct(THRESHOLDS.diskFreeCritical)} critical`,
          detail: `${pct(host.disk.freeRatio)} free on the filesystem of ${host.disk.path}`,
        }
      : {
          name: 'disk',
          status: 'unknown',
          value: null,
          threshold: `free < ${pct(THRESHOLDS.diskFreeDegraded)} degraded`,
          detail: `disk of ${host.disk.path} could not be read: ${host.disk.error}`,
        };
  return [memory, load, disk];
}

export function failureChecks(snapshot: ControlPlaneSnapshot): HealthCheck[] {
  const checks: HealthCheck[] = [];
  let success = 0;
  let failed = 0;
  for (const t of snapshot.runs.byType) {
    success += t.success;
    failed += t.failed;
    const finished = t.success + t.failed;
    if (finished >= THRESHOLDS.typeFailureMinFinished && t.failureRate > THRESHOLDS.typeFailureRateDegraded) {
      checks.push({
        name: `failure-rate:${t.type}`,
        status: 'degraded',
        value: t.failureRate,
        threshold: `more than ${pct(THRESHOLDS.typeFailureRateDegraded)} of at least ${THRESHOLDS.typeFailureMinFinished} finished runs failed`,
        detail: `${t.failed} of ${finished} finished ${t.type} runs failed`,
      });
    }
  }
  const finished = success + failed;
  const overall = finished === 0 ? 0 : Math.round((failed / finished) * 1000) / 1000;
  checks.unshift({
    name: 'failure-rate',
    status: finished >= THRESHOLDS.overallFailureMinFinished && overall > THRESHOLDS.overallFailureRateCritical ? 'critical' : 'ok',
    value: overall,
    threshold: `more than ${pct(THRESHOLDS.overallFailureRateCritical)} of at least ${THRESHOLDS.overallFailureMinFinished} finished runs failed is critical`,
    detail: `${failed} of ${finished} finished runs failed in the last ${snapshot.runs.window} runs`,
  });
  return checks;
}

export function queueCheck(snapshot: ControlPlaneSnapshot): HealthCheck {
  const waiting = snapshot.queue.queued + snapshot.queue.retrying;
  const { slots, basis } = runSlotsOf(snapshot);
  const limit = THRESHOLDS.queuePerSlotDegraded * slots;
  return {
    name: 'queue',
    status: waiting > limit ? 'degraded' : 'ok',
    value: waiting,
    threshold: `more than ${limit} runs waiting (${THRESHOLDS.queuePerSlotDegraded} × ${basis}) is degraded`,
    detail: `${snapshot.queue.queued} queued, ${snapshot.queue.retrying} retrying, ${snapshot.queue.processing} processing, ${snapshot.queue.held} held for approval`,
  };
}

export function serviceChecks(snapshot: ControlPlaneSnapshot): HealthCheck[] {
  return snapshot.agents
    .filter((a) => a.serviceExpected)
    .map((a) => ({
      name: `service:${a.id}`,
      status: a.entrypointAvailable ? ('unknown' as const) : ('degraded' as const),
      value: a.serviceUnitName,
      threshold: 'a service-expected agent without a runnable entrypoint is degraded',
      detail: a.entrypointAvailable
        ? `unit ${a.serviceUnitName ?? 'unnamed'}: probe unavailable from a worker; entrypoint present`
        : `unit ${a.serviceUnitName ?? 'unnamed'}: probe unavailable from a worker; no runnable entrypoint`,
    }));
}

/** The worst status decides: any critical check → critical, any degraded → degraded. */
export function postureOf(checks: HealthCheck[]): HealthPosture {
  if (checks.some((c) => c.status === 'critical')) return 'critical';
  if (checks.some((c) => c.status === 'degraded')) return 'degraded';
  return 'healthy';
}
