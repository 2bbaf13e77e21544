import type { ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';

export const SNAPSHOT_AT = '2026-03-01T12:00:00.000Z';

/** ISO time `hours` before the snapshot. */
export function hoursAgo(hours: number): string {
  return new Date(Date.parse(SNAPSHOT_AT) - hours * 3_600_000).toISOString();
}

type Agent = ControlPlaneSnapshot['agents'][number];
type TypeFigures = ControlPlaneSnapshot['runs']['byType'][number];

/** Per-type figures with the failure rate computed the way the snapshot builder does. */
export function typeFigures(type: string, success: number, failed: number, running = 0): TypeFigures {
  const finished = success + failed;
  return { type, total: finished + running, success, failed, running, failureRate: finished ? Math.round((failed / finished) * 1000) / 1000 : 0 };
}

export function agentEntry(id: string, lanes: string[], overrides: Partial<Agent> = {}): Agent {
  return {
    id,
    lanes,
    lifecycleMode: 'worker-first',
    serviceExpected: false,
    serviceUnitName: null,
    entrypointAvailable: true,
    allowedSkills: ['state-read'],
    runCount: 0,
    lastRunAt: null,
    ...overrides,
  };
}

/** A quiet, healthy control plane; tests override the parts they are about. */
export function quietSnapshot(overrides: Partial<ControlPlaneSnapshot> = {}): ControlPlaneSnapshot {
  return {
    generatedAt: SNAPSHOT_AT,
    service: {
      startedAt: hoursAgo(2),
      uptimeSeconds: 7200,
      pid: 4242,
      stateStore: 'file',
      coordination: 'memory',
      concurrency: 2,
      stateDirectory: null,
    },
    queue: { queued: 0, processing: 0, held: 0, retrying: 0 },
    approvals: { pendingCount: 0, oldestRequestedAt: null, items: [] },
    runs: {
      window: 12,
      byType: [typeFigures('summarize-content', 10, 0), typeFigures('startup', 2, 0)],
      recent: [
        {
          runId: 'r-1',
          type: 'summarize-content',
          status: 'success',
          createdAt: hoursAgo(0.5),
          finishedAt: hoursAgo(0.5),
          durationMs: 800,
          error: null,
          attempt: 1,
          resultKeys: ['success', 'summary'],
        },
      ],
    },
    agents: [agentEntry('summarization-agent', ['summarize-content'], { runCount: 10, lastRunAt: hoursAgo(0.5) })],
    incidents: [],
    milestones: [{ milestoneId: 'startup:s-1', kind: 'startup', status: 'completed', at: hoursAgo(2), summary: 'service started' }],
    ...overrides,
  };
}

/** A payload as the service sends it: the lane's own fields plus the snapshot. */
export function withSnapshot(snapshot: ControlPlaneSnapshot, fields: Record<string, unknown> = {}): Record<string, unknown> {
  return { ...fields, __controlPlane: snapshot };
}
