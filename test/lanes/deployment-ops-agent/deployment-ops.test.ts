import { describe, expect, it } from 'vitest';
import { deploymentOps } from '../../../agents/deployment-ops-agent/deployment-ops.js';
import {
  agentEntry,
  hoursAgo,
  quietSnapshot,
  typeFigures,
  withSnapshot,
} from '../../support/control-plane-snapshot.js';

function succeed(result: ReturnType<typeof deploymentOps>) {
  if (!result.success) throw new Error(result.error);
  return result;
}

describe('deployment-ops lane', () => {
  it('is ready on a quiet control plane and takes no action', () => {
    const result = succeed(deploymentOps(withSnapshot(quietSnapshot())));
    expect(result).toMatchObject({ posture: 'ready', blockers: [], watchItems: [], actionsTaken: [] });
    expect(result.runtime).toMatchObject({ stateStore: 'file', coordination: 'memory', concurrency: 2 });
  });

  it('watches a pending build-refactor approval, unspawnable services and a single deploy failure', () => {
    const snapshot = quietSnapshot({
      approvals: {
        pendingCount: 2,
        oldestRequestedAt: hoursAgo(2),
        items: [
          { taskId: 'br-1', runId: 'br-1', type: 'build-refactor', requestedAt: hoursAgo(2) },
          { taskId: 'sum-1', runId: 'sum-1', type: 'summarize-content', requestedAt: hoursAgo(1) },
        ],
      },
      runs: { window: 14, byType: [typeFigures('qa-verification', 3, 1), typeFigures('summarize-content', 5, 5)], recent: [] },
      agents: [
        agentEntry('doc-specialist', ['drift-repair'], {
          lifecycleMode: 'service-expected',
          serviceExpected: true,
          serviceUnitName: 'doc-specialist.service',
          entrypointAvailable: false,
        }),
        agentEntry('community-helper', ['community-response'], {
          lifecycleMode: 'service-expected',
          serviceExpected: true,
          serviceUnitName: 'community-helper.service',
        }),
      ],
    });
    const result = succeed(deploymentOps(withSnapshot(snapshot)));
    expect(result.posture).toBe('watch');
    expect(result.blockers).toEqual([]);
    expect(result.watchItems.map((w) => w.code).sort()).toEqual(['deploy-approval-pending', 'deploy-lane-failure', 'service-not-spawnable']);
    expect(result.watchItems.find((w) => w.code === 'deploy-approval-pending')!.evidence).toMatchObject({ taskId: 'br-1', type: 'build-refactor' });
    // A summarize-content approval or failure is not a deployment matter.
    expect(JSON.stringify(result.watchItems)).not.toContain('summarize-content');
    expect(result.services).toEqual([
      { agentId: 'doc-specialist', serviceUnitName: 'doc-specialist.service', entrypointAvailable: false, probe: 'probe unavailable' },
      { agentId: 'community-helper', serviceUnitName: 'community-helper.service', entrypointAvailable: true, probe: 'probe unavailable' },
    ]);
  });

  it('is blocked when agent-deploy keeps failing, naming the latest error', () => {
    const snapshot = quietSnapshot({
      runs: {
        window: 4,
        byType: [typeFigures('agent-deploy', 1, 3)],
        recent: [
          {
            runId: 'ad-3',
            type: 'agent-deploy',
            status: 'failed',
            createdAt: hoursAgo(0.1),
            finishedAt: hoursAgo(0.1),
            durationMs: 40,
            error: 'template not found: agents/templates/web',
            attempt: 1,
            resultKeys: [],
          },
        ],
      },
    });
    const result = succeed(deploymentOps(withSnapshot(snapshot)));
    expect(result.posture).toBe('blocked');
    expect(result.blockers).toEqual([
      {
        code: 'deploy-lane-failing',
        detail: 'agent-deploy: 3 of 4 finished runs failed (75%)',
        evidence: { type: 'agent-deploy', failed: 3, finished: 4, failureRate: 0.75, lastError: 'template not found: agents/templates/web' },
      },
    ]);
    expect(result.recommendedNextActions[0]).toContain('agent-deploy');
  });

  it('is blocked by a saturated queue and watches a busy one', () => {
    const saturated = succeed(deploymentOps(withSnapshot(quietSnapshot({ queue: { queued: 51, processing: 2, held: 0, retrying: 0 } }))));
    expect(saturated.posture).toBe('blocked');
    expect(saturated.blockers[0]).toMatchObject({ code: 'queue-saturated', evidence: { queued: 51, concurrency: 2 } });
    const busy = succeed(deploymentOps(withSnapshot(quietSnapshot({ queue: { queued: 21, processing: 2, held: 0, retrying: 0 } }))));
    expect(busy.posture).toBe('watch');
    expect(busy.watchItems[0]!.code).toBe('queue-pressure');
  });

  it('judges an admission-only instance by the runs executing across instances', () => {
    const service = { ...quietSnapshot().service, stateStore: 'postgres', concurrency: 0 };
    // Other instances run 40 runs: 300 waiting is under 10 × 40, not the saturation of one slot.
    const fleet = succeed(deploymentOps(withSnapshot(quietSnapshot({ service, queue: { queued: 300, processing: 40, held: 0, retrying: 0 } }))));
    expect(fleet.posture).toBe('ready');
    const heavy = succeed(deploymentOps(withSnapshot(quietSnapshot({ service, queue: { queued: 1001, processing: 40, held: 0, retrying: 0 } }))));
    expect(heavy.blockers[0]).toMatchObject({ code: 'queue-saturated', detail: '1001 runs waiting, above 25 × 40 runs executing across instances', evidence: { concurrency: 0, runSlots: 40 } });
    // Nobody runs the queue: eleven waiting runs are already pressure.
    const stalled = succeed(deploymentOps(withSnapshot(quietSnapshot({ service, queue: { queued: 11, processing: 0, held: 0, retrying: 0 } }))));
    expect(stalled.watchItems[0]).toMatchObject({ code: 'queue-pressure', evidence: { runSlots: 1 } });
  });

  it('refuses without a snapshot', () => {
    expect(deploymentOps({})).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
  });
});
