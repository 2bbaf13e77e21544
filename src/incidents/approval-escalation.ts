import type { Clock } from '../clock.js';
import type { RunRecord } from '../domain/run-record.js';
import type { ApprovalEscalation } from '../runtime/approval-expiry.js';
import { Fingerprints, incidentIdFor } from './fingerprint.js';
import type { IncidentLedger } from './ledger.js';
import { applySignal } from './record.js';
import type { IncidentSignal } from './types.js';

/**
 * The incident of one approval nobody decided before it expired, under `onExpiry: "escalate"`.
 * Its source is `signal`, not `approval-backlog`: the sweep resolves `approval-backlog` incidents
 * when the backlog thresholds clear, while this one lasts until the approval is decided.
 */
export function expiredApprovalSignal(run: RunRecord): IncidentSignal {
  const path = `/api/approvals/${encodeURIComponent(run.taskId)}`;
  return {
    fingerprint: Fingerprints.approvalExpired(run.taskId),
    source: 'signal',
    classification: 'approval-backlog',
    severity: 'warning',
    title: `Approval of ${run.type} run ${run.runId} expired undecided`,
    summary: `requested by ${run.approval.requestedBy ?? run.requestedBy} at ${run.approval.requestedAt ?? run.createdAt}, expired at ${run.approval.expiresAt}; the run is still held`,
    linkedRunIds: [run.runId],
    recommendedSteps: [`read GET ${path}`, `decide it: POST ${path}/decision`],
  };
}

export interface ApprovalEscalationDeps {
  ledger: IncidentLedger;
  clock: Clock;
  /** Lets the incident policies act on a newly opened incident (owner assignment, escalation on breach). */
  runPolicies: (incidentId: string) => Promise<unknown>;
}

/**
 * The incidents side of approval expiry: one incident per expired approval (created only when
 * its fingerprint has none, under the incident's lock, so repeated or concurrent escalations of
 * the same approval open it once), resolved when the approval is decided after all.
 */
export function createApprovalEscalation(deps: ApprovalEscalationDeps): ApprovalEscalation {
  const { ledger, clock } = deps;
  return {
    async escalate(run) {
      const signal = expiredApprovalSignal(run);
      const incidentId = incidentIdFor(signal.fingerprint);
      let opened = false;
      await ledger.mutate(incidentId, (current) => {
        if (current) return null;
        opened = true;
        return applySignal(null, signal, clock.now());
      });
      if (opened) await deps.runPolicies(incidentId);
    },
    async settle(run) {
      const outcome = run.approval.status === 'pending' ? 'left pending' : run.approval.status;
      const by = run.approval.decidedBy ?? 'service';
      await ledger.resolveSignal(Fingerprints.approvalExpired(run.taskId), `approval ${outcome} by ${by}`, by);
    },
  };
}
