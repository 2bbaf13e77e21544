import { describe, expect, it } from 'vitest';
import { incidentTriage } from '../../../agents/system-monitor-agent/incident-triage.js';
import {
  agentEntry,
  hoursAgo,
  quietSnapshot,
  typeFigures,
  withSnapshot,
} from '../../support/control-plane-snapshot.js';

function succeed(result: ReturnType<typeof incidentTriage>) {
  if (!result.success) throw new Error(result.error);
  return result;
}

describe('incident-triage lane', () => {
  it('ranks a lane failing 6 of 8 runs first, above an aged approval and an unspawnable service', () => {
    const snapshot = quietSnapshot({
      queue: { queued: 0, processing: 0, held: 1, retrying: 1 },
      approvals: {
        pendingCount: 1,
        oldestRequestedAt: hoursAgo(3),
        items: [{ taskId: 't-1', runId: 'r-held', type: 'build-refactor', requestedAt: hoursAgo(3) }],
      },
      runs: {
        window: 20,
        byType: [typeFigures('security-audit', 2, 6), typeFigures('summarize-content', 10, 1), typeFigures('code-index', 1, 1)],
        recent: [
          {
            runId: 'sa-6',
            type: 'security-audit',
            status: 'failed',
            createdAt: hoursAgo(0.2),
            finishedAt: hoursAgo(0.2),
            durationMs: 300,
            error: 'scope "repo" not found',
            attempt: 1,
            resultKeys: [],
          },
        ],
      },
      agents: [
        agentEntry('doc-specialist', ['drift-repair'], {
          lifecycleMode: 'service-expected',
          serviceExpected: true,
          serviceUnitName: 'doc-specialist.service',
          entrypointAvailable: false,
        }),
      ],
    });
    const result = succeed(incidentTriage(withSnapshot(snapshot)));

    expect(result.queue.map((e) => [e.rank, e.classification])).toEqual([
      [1, 'runtime-mode'],
      [2, 'service-runtime'],
      [3, 'approval-backlog'],
      [4, 'retry-recovery'],
    ]);
    const first = result.queue[0]!;
    expect(first).toMatchObject({ source: 'run-history', severity: 'critical', title: 'security-audit runs keep failing', score: 82 });
    expect(first.reasons[0]).toContain('6 of 8 finished security-audit runs failed (75%)');
    expect(first.reasons[1]).toContain('scope "repo" not found');
    // One failure of 11, or 1 of 2, is not a pattern.
    expect(result.queue.some((e) => e.title.includes('summarize-content') || e.title.includes('code-index'))).toBe(false);
    const approvals = result.queue.find((e) => e.classification === 'approval-backlog')!;
    expect(approvals).toMatchObject({ severity: 'warning', score: 35, title: '1 approval pending longer than 1 h' });
    expect(approvals.reasons.join(' ')).toContain('build-refactor');
    expect(result.counts).toMatchObject({ total: 4, critical: 1, warning: 2, info: 1, fromLedger: 0, derived: 4 });
    expect(result.recommendedNextActions[0]).toContain('security-audit');
  });

  it('puts open ledger incidents in by severity and acknowledgement, leaving resolved ones out', () => {
    const incident = (id: string, severity: 'critical' | 'warning' | 'info', extra: Record<string, unknown> = {}) => ({
      id,
      classification: 'persistence',
      severity,
      status: 'active',
      title: `incident ${id}`,
      firstSeenAt: hoursAgo(2),
      lastSeenAt: hoursAgo(1),
      acknowledged: false,
      owner: null,
      ...extra,
    });
    const snapshot = quietSnapshot({
      incidents: [
        incident('warn-acked', 'warning', { acknowledged: true, owner: 'ops' }),
        incident('crit', 'critical'),
        incident('gone', 'critical', { status: 'resolved' }),
        incident('info', 'info'),
      ],
    });
    const result = succeed(incidentTriage(withSnapshot(snapshot)));
    expect(result.queue.map((e) => e.title)).toEqual(['incident crit', 'incident warn-acked', 'incident info']);
    expect(result.queue[0]).toMatchObject({ source: 'incident-ledger', score: 87, rank: 1 });
    expect(result.queue[0]!.recommendedAction).toContain('Acknowledge incident crit');
    expect(result.counts.fromLedger).toBe(3);
  });

  it('answers an empty queue with success when the control plane is quiet', () => {
    const result = succeed(incidentTriage(withSnapshot(quietSnapshot())));
    expect(result.queue).toEqual([]);
    expect(result.operatorSummary).toContain('Nothing to triage');
  });

  it('refuses without a snapshot', () => {
    expect(incidentTriage({})).toMatchObject({ success: false, specialistContract: { status: 'refused' } });
  });
});
