import { describe, expect, it } from 'vitest';
import { controlPlaneBrief } from '../../../agents/operations-analyst-agent/control-plane-brief.js';
import { MAX_BRIEF_BYTES } from '../../../agents/operations-analyst-agent/fit-to-size.js';
import type { ControlPlaneSnapshot } from '../../../src/worker-sdk/control-plane.js';
import { hoursAgo, quietSnapshot, typeFigures, withSnapshot } from '../../support/control-plane-snapshot.js';

function succeed(result: ReturnType<typeof controlPlaneBrief>) {
  if (!result.success) throw new Error(result.error);
  return result;
}

function incident(i: number, severity: 'critical' | 'warning' | 'info'): ControlPlaneSnapshot['incidents'][number] {
  return {
    id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
    classification: 'alert',
    severity,
    status: 'active',
    title: `Alert ${i}: ${'disk latency above the objective on the primary volume '.repeat(3)}`,
    firstSeenAt: hoursAgo(5),
    lastSeenAt: hoursAgo(1),
    acknowledged: false,
    owner: null,
  };
}

describe('control-plane-brief lane', () => {
  it('is steady on a quiet control plane, with numbers in every section', () => {
    const result = succeed(controlPlaneBrief(withSnapshot(quietSnapshot())));
    expect(result.posture).toBe('steady');
    expect(Object.keys(result.brief.sections)).toEqual(['queue', 'approvals', 'incidents', 'services', 'proof', 'runs']);
    expect(result.brief.sections.queue.facts[0]).toBe('0 queued, 0 processing (this instance has 2 run slots), 0 held for approval, 0 retrying');
    expect(result.brief.sections.runs.facts[0]).toBe('0 of 12 finished runs failed (0%) in the last 12 runs');
    expect(result.brief.sections.proof.facts[0]).toContain('latest milestone startup completed');
    expect(result.brief.headline).toContain('steady');
    expect(result.truncated).toBe(false);
  });

  it('names an approval pending for 3 h and asks for attention', () => {
    const snapshot = quietSnapshot({
      queue: { queued: 0, processing: 0, held: 2, retrying: 0 },
      approvals: {
        pendingCount: 2,
        oldestRequestedAt: hoursAgo(3),
        items: [
          { taskId: 'fresh-1', runId: 'fresh-1', type: 'agent-deploy', requestedAt: hoursAgo(0.2) },
          { taskId: 'aged-1', runId: 'aged-1', type: 'build-refactor', requestedAt: hoursAgo(3) },
        ],
      },
    });
    const result = succeed(controlPlaneBrief(withSnapshot(snapshot)));
    expect(result.posture).toBe('attention');
    const approvals = result.brief.sections.approvals;
    expect(approvals.status).toBe('attention');
    expect(approvals.facts).toContain('build-refactor approval aged-1 pending for 3.0 h');
    expect(approvals.facts.some((f) => f.includes('fresh-1'))).toBe(false);
    expect(approvals.items).toContainEqual({ taskId: 'aged-1', type: 'build-refactor', requestedAt: hoursAgo(3), pendingHours: 3 });
    expect(result.brief.headline).toContain('approvals (attention)');
    expect(result.recommendedNextActions[0]).toContain('/api/approvals/pending');
  });

  it('is critical with an open critical incident or a failing control plane, and names the failing lane', () => {
    const snapshot = quietSnapshot({
      incidents: [incident(1, 'critical')],
      runs: { window: 20, byType: [typeFigures('security-audit', 2, 6), typeFigures('summarize-content', 12, 0)], recent: [] },
    });
    const result = succeed(controlPlaneBrief(withSnapshot(snapshot)));
    expect(result.posture).toBe('critical');
    expect(result.brief.sections.incidents.facts[0]).toBe('1 open incident: 1 critical, 0 warning, 0 info');
    expect(result.brief.sections.runs).toMatchObject({ status: 'attention' });
    expect(result.brief.sections.runs.facts).toContain('security-audit: 6 of 8 failed (75%)');
  });

  it('keeps a crowded brief under its size cap and says what it left out', () => {
    const snapshot = quietSnapshot({
      incidents: Array.from({ length: 50 }, (_, i) => incident(i, i % 2 ? 'warning' : 'info')),
      approvals: {
        pendingCount: 140,
        oldestRequestedAt: hoursAgo(30),
        items: Array.from({ length: 20 }, (_, i) => ({ taskId: `task-${i}`, runId: `run-${i}`, type: 'build-refactor', requestedAt: hoursAgo(30 - i) })),
      },
    });
    const result = succeed(controlPlaneBrief(withSnapshot(snapshot)));
    expect(result.briefBytes).toBeLessThanOrEqual(MAX_BRIEF_BYTES);
    expect(Buffer.byteLength(JSON.stringify(result.brief))).toBe(result.briefBytes);
    expect(result.truncated).toBe(true);
    expect(result.brief.truncation).toContain('incidents: 40 of 50 items left out');
    expect(result.posture).toBe('critical');
    expect(result.brief.sections.approvals.facts[0]).toBe('140 approvals pending');
  });

  it('refuses without a snapshot', () => {
    expect(controlPlaneBrief({})).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
  });
});
