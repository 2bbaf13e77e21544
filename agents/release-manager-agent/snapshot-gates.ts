import type { ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';
import type { ReleaseGate } from './gate.js';

/**
 * Gates read from the control plane:
 * - recent-failures: a type failing more than 50% of at least 4 finished runs fails the gate;
 *   any failed run among the recent ones is a warning;
 * - pending-approvals: any pending approval is a warning (a change is still undecided);
 * - open-incidents: an open critical incident fails, an open warning incident warns.
 */
export const RULES = { failingRate: 0.5, failingMinFinished: 4 } as const;

function recentFailuresGate(s: ControlPlaneSnapshot): ReleaseGate {
  const failing = s.runs.byType.filter((t) => t.success + t.failed >= RULES.failingMinFinished && t.failureRate > RULES.failingRate);
  if (failing.length > 0) {
    return {
      gate: 'recent-failures',
      status: 'fail',
      evidence: failing.map((t) => `${t.type}: ${t.failed} of ${t.success + t.failed} finished runs failed`).join('; '),
    };
  }
  const failedRecent = s.runs.recent.filter((r) => r.status === 'failed');
  if (failedRecent.length > 0) {
    const types = [...new Set(failedRecent.map((r) => r.type))];
    return {
      gate: 'recent-failures',
      status: 'warn',
      evidence: `${failedRecent.length} of the ${s.runs.recent.length} most recent runs failed (${types.join(', ')})`,
    };
  }
  return { gate: 'recent-failures', status: 'pass', evidence: `no failed run among the ${s.runs.recent.length} most recent runs` };
}

function approvalsGate(s: ControlPlaneSnapshot): ReleaseGate {
  if (s.approvals.pendingCount === 0) return { gate: 'pending-approvals', status: 'pass', evidence: 'no approval pending' };
  const named = s.approvals.items.slice(0, 5).map((a) => `${a.type} ${a.taskId}`);
  return {
    gate: 'pending-approvals',
    status: 'warn',
    evidence: `${s.approvals.pendingCount} approval(s) pending since ${s.approvals.oldestRequestedAt}: ${named.join(', ')}`,
  };
}

function incidentsGate(s: ControlPlaneSnapshot): ReleaseGate {
  const open = s.incidents.filter((i) => i.status !== 'resolved');
  const critical = open.filter((i) => i.severity === 'critical');
  const warning = open.filter((i) => i.severity === 'warning');
  if (critical.length > 0) {
    return { gate: 'open-incidents', status: 'fail', evidence: `${critical.length} open critical incident(s): ${critical.slice(0, 3).map((i) => i.title).join('; ')}` };
  }
  if (warning.length > 0) {
    return { gate: 'open-incidents', status: 'warn', evidence: `${warning.length} open warning incident(s): ${warning.slice(0, 3).map((i) => i.title).join('; ')}` };
  }
  return { gate: 'open-incidents', status: 'pass', evidence: `${open.length} open incident(s), none critical or warning` };
}

export function snapshotGates(s: ControlPlaneSnapshot): ReleaseGate[] {
  return [recentFailuresGate(s), approvalsGate(s), incidentsGate(s)];
}
