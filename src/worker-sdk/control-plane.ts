/**
 * The bounded view of the orchestrator's own state that the executor hands to lanes which judge
 * the control plane (system-monitor, incident-triage, control-plane-brief, deployment-ops,
 * release-readiness, skill-audit). It travels in the payload under the service-reserved key
 * `__controlPlane`, so a worker never opens the state store itself: the same lane works on every
 * store driver, and a worker cannot see more than this snapshot carries (no payloads, no keys).
 * Every list is bounded; counts are exact.
 */
export const CONTROL_PLANE_PAYLOAD_KEY = '__controlPlane';

export interface ControlPlaneSnapshot {
  generatedAt: string;
  service: {
    startedAt: string;
    uptimeSeconds: number;
    pid: number;
    /** Kind of the active state store: `file`, `sqlite` or `postgres`. */
    stateStore: string;
    /** Coordination driver: `memory` or `redis`. */
    coordination: string;
    concurrency: number;
    /** Absolute folder holding the state target, for disk figures; null for a database store. */
    stateDirectory: string | null;
  };
  queue: {
    /** Admitted and waiting for a slot. */
    queued: number;
    /** Claimed by a runner and executing. */
    processing: number;
    /** Held for an operator decision. */
    held: number;
    /** Failed and waiting for an automatic retry. */
    retrying: number;
  };
  approvals: {
    pendingCount: number;
    oldestRequestedAt: string | null;
    /** Newest first, at most 20. */
    items: Array<{ taskId: string; runId: string; type: string; requestedAt: string }>;
  };
  runs: {
    /** Number of most recent finished or running runs the figures below are computed over. */
    window: number;
    byType: Array<{ type: string; total: number; success: number; failed: number; running: number; failureRate: number }>;
    /** Newest first, at most 50; internal runs included. */
    recent: Array<{
      runId: string;
      type: string;
      status: string;
      createdAt: string;
      finishedAt: string | null;
      durationMs: number | null;
      error: string | null;
      attempt: number;
      /** Top-level keys of the result, never its values. */
      resultKeys: string[];
    }>;
  };
  agents: Array<{
    id: string;
    lanes: string[];
    lifecycleMode: string;
    serviceExpected: boolean;
    serviceUnitName: string | null;
    entrypointAvailable: boolean;
    allowedSkills: string[];
    /** Runs of the agent's lanes inside the window. */
    runCount: number;
    lastRunAt: string | null;
  }>;
  /** Open incidents of the ledger, most severe first, at most 50. */
  incidents: Array<{
    id: string;
    classification: string;
    severity: 'critical' | 'warning' | 'info';
    status: string;
    title: string;
    firstSeenAt: string;
    lastSeenAt: string;
    acknowledged: boolean;
    owner: string | null;
  }>;
  /** Latest milestones, newest first, at most 20. */
  milestones: Array<{ milestoneId: string; kind: string; status: string; at: string; summary: string }>;
}

/** The snapshot carried by a payload, or null when the executor sent none. */
export function controlPlaneOf(payload: Readonly<Record<string, unknown>>): ControlPlaneSnapshot | null {
  const value = payload[CONTROL_PLANE_PAYLOAD_KEY];
  return typeof value === 'object' && value !== null ? (value as ControlPlaneSnapshot) : null;
}

/** The run slots a queue's pressure is judged against, and how a finding names them. */
export interface RunSlots {
  slots: number;
  /** `concurrency 4`, or `12 runs executing across instances`, or the case where nothing runs. */
  basis: string;
}

/**
 * An instance's `concurrency` counts its own run slots only. On a shared store other instances
 * run the queue too, and an instance with concurrency 0 runs none of it itself, so its
 * concurrency would put the pressure line at one slot while a fleet drains the queue. The runs
 * executing now are a floor of the fleet's slots (all of them are busy while runs wait), so the
 * larger of the two is used. With neither, the line is one slot: a queue nobody runs is pressure.
 */
export function runSlotsOf(snapshot: Pick<ControlPlaneSnapshot, 'service' | 'queue'>): RunSlots {
  const own = snapshot.service.concurrency;
  const executing = snapshot.queue.processing;
  if (own > 0 && own >= executing) return { slots: own, basis: `concurrency ${own}` };
  if (executing > 0) return { slots: executing, basis: `${executing} runs executing across instances` };
  return { slots: 1, basis: 'one slot: this instance runs none (concurrency 0) and no run is executing' };
}
