import type { ServiceGapSignal } from '../agents/service-probe.js';
import type { CoordinationStatus } from '../coordination/types.js';
import type { StoreHealth } from '../store/types.js';
import type { RunRecord } from '../domain/run-record.js';
import { endedByApprovalRefusal } from '../domain/approval-refusal.js';
import { Fingerprints } from './fingerprint.js';
import type { IncidentSignal } from './types.js';

/** Payload key linking a run to the incident whose policy or operator started it. */
export const INCIDENT_LINK_KEY = '__incidentId';

export function incidentLinkOf(run: RunRecord): string | null {
  const value = run.payload[INCIDENT_LINK_KEY];
  return typeof value === 'string' ? value : null;
}

/**
 * What a settled run says about incidents, by its lineage (the run id: a retry is a new attempt
 * of the same run). `signal`: a run still retrying is watched (under threshold), one that failed
 * for good is active, with `retry-recovery` when it used up its retries. `resolve`: a run that
 * succeeded after retrying clears its incident, and so does one an operator cancelled (the lineage
 * ends there: a cancel is a decision, not a fault). Runs started for an incident (its remediation,
 * verifier or escalation) and rejected approvals report nothing: they are tracked on the
 * incident that started them, or are an operator's decision, not a fault.
 */
export function runSignal(run: RunRecord): { signal: IncidentSignal } | { resolve: string } | null {
  if (incidentLinkOf(run) !== null) return null;
  const fingerprint = Fingerprints.run(run.runId);
  if (run.status === 'success') return run.attempt > 1 ? { resolve: fingerprint } : null;
  if (run.status === 'cancelled') return { resolve: fingerprint };
  if (endedByApprovalRefusal(run)) return null;
  const base = { fingerprint, source: 'run' as const, linkedRunIds: [run.runId] };
  const error = (run.error ?? run.failureReason ?? 'failed').slice(0, 300);
  if (run.status === 'retrying' && run.retry) {
    return {
      signal: {
        ...base,
        classification: 'retry-recovery',
        severity: 'info',
        status: 'watching',
        title: `${run.type} run ${run.runId} is retrying`,
        summary: `attempt ${run.retry.attempt} of ${run.retry.retryLimit} failed (${error}); next attempt at ${run.retry.nextRetryAt}`,
        recommendedSteps: [`watch GET /api/tasks/runs/${encodeURIComponent(run.runId)}`],
      },
    };
  }
  if (run.status !== 'failed') return null;
  const exhausted = run.attempt > 1;
  return {
    signal: {
      ...base,
      classification: exhausted ? 'retry-recovery' : 'run-failure',
      severity: 'warning',
      title: exhausted ? `${run.type} run ${run.runId} failed after ${run.attempt} attempts` : `${run.type} run ${run.runId} failed`,
      summary: exhausted ? `retries exhausted; last error: ${error}` : `failed (${run.failureReason ?? 'failed'}): ${error}`,
      recommendedSteps: [
        `read the run record: GET /api/tasks/runs/${encodeURIComponent(run.runId)}`,
        `trigger ${run.type} again once the cause is fixed`,
      ],
    },
  };
}

export function serviceGapSignalOf(gap: ServiceGapSignal): IncidentSignal {
  return {
    fingerprint: Fingerprints.serviceGap(gap.agentId),
    source: 'service-gap',
    classification: 'service-runtime',
    severity: gap.reason === 'unit-failed' ? 'critical' : 'warning',
    title: `${gap.agentId} resident service ${gap.reason.replace('unit-', '')}`,
    summary: gap.detail,
    recommendedSteps: [`systemctl --user status ${gap.unit}`, `install or start ${gap.unit}`],
  };
}

export interface ApprovalBacklogThresholds {
  /** Pending approvals beyond this count are a backlog. */
  maxPending: number;
  /** A pending approval older than this is a backlog. */
  maxAgeMinutes: number;
}

export const DEFAULT_APPROVAL_BACKLOG: ApprovalBacklogThresholds = { maxPending: 10, maxAgeMinutes: 60 };

/** An approval backlog signal when too many approvals wait, or the oldest waits too long. */
export function approvalBacklogSignal(
  pending: number,
  oldestRequestedAt: string | null,
  now: Date,
  thresholds: ApprovalBacklogThresholds = DEFAULT_APPROVAL_BACKLOG,
): IncidentSignal | null {
  const ageMinutes = oldestRequestedAt ? (now.getTime() - Date.parse(oldestRequestedAt)) / 60_000 : 0;
  const tooMany = pending > thresholds.maxPending;
  const tooOld = pending > 0 && ageMinutes > thresholds.maxAgeMinutes;
  if (!tooMany && !tooOld) return null;
  const reasons = [
    ...(tooMany ? [`${pending} approvals pending (threshold ${thresholds.maxPending})`] : []),
    ...(tooOld ? [`oldest pending for ${Math.floor(ageMinutes)} min (threshold ${thresholds.maxAgeMinutes})`] : []),
  ];
  return {
    fingerprint: Fingerprints.approvalBacklog(),
    source: 'approval-backlog',
    classification: 'approval-backlog',
    severity: tooMany && tooOld ? 'critical' : 'warning',
    title: 'Approval backlog',
    summary: reasons.join('; '),
    recommendedSteps: ['review GET /api/approvals/pending and decide each item'],
  };
}

export function stateStoreSignal(health: StoreHealth): IncidentSignal | null {
  if (health.status === 'ok') return null;
  return {
    fingerprint: Fingerprints.stateStore(),
    source: 'persistence',
    classification: 'persistence',
    severity: health.status === 'down' ? 'critical' : 'warning',
    title: `State store ${health.status}`,
    summary: `${health.target}: ${health.detail}`,
    recommendedSteps: ['check GET /api/persistence/health', 'check disk space and permissions of the state target'],
  };
}

export function coordinationSignal(status: CoordinationStatus): IncidentSignal | null {
  if (status.status === 'ok') return null;
  return {
    fingerprint: Fingerprints.coordination(),
    source: 'coordination',
    classification: 'persistence',
    severity: 'warning',
    title: `Coordination store ${status.status}`,
    summary: status.detail,
    recommendedSteps: ['check GET /api/persistence/health', 'check the key-value store at KV_STORE_URL'],
  };
}

/** What the knowledge index reports about itself (see src/knowledge/service.ts `knowledgeStats`). */
export interface KnowledgeHealth {
  staleDocs: number;
  contradictionCount: number;
}

/** Stale docs and contradicting statements across docs, each one incident while it lasts. */
export function knowledgeSignals(health: KnowledgeHealth): IncidentSignal[] {
  const signals: IncidentSignal[] = [];
  if (health.staleDocs > 0) {
    signals.push({
      fingerprint: Fingerprints.knowledgeStaleness(),
      source: 'knowledge',
      classification: 'knowledge',
      severity: 'info',
      title: 'Knowledge is stale',
      summary: `${health.staleDocs} doc(s) are older than the files they describe`,
      recommendedSteps: ['read GET /api/knowledge/summary (diagnostics.freshness)', 'update the stale docs; drift-repair regenerates the pack'],
    });
  }
  if (health.contradictionCount > 0) {
    signals.push({
      fingerprint: Fingerprints.knowledgeContradictions(),
      source: 'knowledge',
      classification: 'knowledge',
      severity: 'warning',
      title: 'Docs contradict each other',
      summary: `${health.contradictionCount} fact(s) are stated with different values across docs`,
      recommendedSteps: ['read GET /api/knowledge/summary (diagnostics.contradictionSignals)', 'make the docs agree; the incident resolves on the next sweep'],
    });
  }
  return signals;
}
