import type { ControlPlaneSnapshot } from '../../src/worker-sdk/control-plane.js';

export type Severity = 'critical' | 'warning' | 'info';

/** One candidate for the triage queue before ranking. */
export interface TriageSignal {
  source: 'incident-ledger' | 'run-history' | 'approval-queue' | 'agent-registry' | 'retry-queue' | 'milestones';
  classification: string;
  severity: Severity;
  title: string;
  score: number;
  reasons: string[];
  recommendedAction: string;
}

/**
 * Scoring (0–100, higher first); the severity sets the base, the evidence adds to it:
 * - ledger incident: critical 70, warning 45, info 15; +10 when unacknowledged, +5 without an
 *   owner, +1 per hour open (at most +15);
 * - failing lane (at least 3 failures and a failure rate of at least 50% in the window):
 *   40 + 40 × failure rate + 2 per failure (at most +20); critical from a 75% rate with 5 failures;
 * - approval backlog (pending longer than 1 h): 30 + 1 per hour of the oldest (at most +30)
 *   + 2 per aged approval (at most +20); critical beyond 24 h;
 * - service-expected agent that cannot be spawned: 50, warning;
 * - runs waiting for an automatic retry: 15 + 5 per run (at most +30), warning from 3 runs;
 * - latest milestone not completed: 35, warning.
 */
export const SCORING = {
  incidentBase: { critical: 70, warning: 45, info: 15 } as Record<Severity, number>,
  unacknowledgedBonus: 10,
  ownerlessBonus: 5,
  maxAgeBonus: 15,
  failingMinFailures: 3,
  failingMinRate: 0.5,
  approvalAgeMs: 60 * 60 * 1000,
  approvalCriticalMs: 24 * 60 * 60 * 1000,
} as const;

const HOUR = 60 * 60 * 1000;
const cap = (value: number, max: number) => Math.min(max, Math.max(0, value));
const round = (value: number) => Math.round(value * 10) / 10;

function ageMs(at: string, now: number): number {
  const t = Date.parse(at);
  return Number.isFinite(t) ? Math.max(0, now - t) : 0;
}

function ledgerSignals(snapshot: ControlPlaneSnapshot, now: number): TriageSignal[] {
  return snapshot.incidents
    .filter((i) => i.status !== 'resolved')
    .map((i) => {
      const hours = ageMs(i.firstSeenAt, now) / HOUR;
      const reasons = [`${i.severity} ${i.classification} incident, status ${i.status}, open ${round(hours)} h`];
      if (!i.acknowledged) reasons.push('not acknowledged');
      if (i.owner === null) reasons.push('no owner');
      return {
        source: 'incident-ledger' as const,
        classification: i.classification,
        severity: i.severity,
        title: i.title,
        score: round(
          SCORING.incidentBase[i.severity] +
            (i.acknowledged ? 0 : SCORING.unacknowledgedBonus) +
            (i.owner === null ? SCORING.ownerlessBonus : 0) +
            cap(hours, SCORING.maxAgeBonus),
        ),
        reasons,
        recommendedAction: i.acknowledged ? `Work the remediation of incident ${i.id}.` : `Acknowledge incident ${i.id} and assign an owner.`,
      };
    });
}

function failingLaneSignals(snapshot: ControlPlaneSnapshot): TriageSignal[] {
  return snapshot.runs.byType
    .filter((t) => t.failed >= SCORING.failingMinFailures && t.failureRate >= SCORING.failingMinRate)
    .map((t) => {
      const lastError = snapshot.runs.recent.find((r) => r.type === t.type && r.error !== null)?.error ?? null;
      const reasons = [`${t.failed} of ${t.success + t.failed} finished ${t.type} runs failed (${Math.round(t.failureRate * 100)}%) in the last ${snapshot.runs.window} runs`];
      if (lastError) reasons.push(`latest error: ${lastError.slice(0, 200)}`);
      return {
        source: 'run-history' as const,
        classification: 'runtime-mode',
        severity: t.failureRate >= 0.75 && t.failed >= 5 ? ('critical' as const) : ('warning' as const),
        title: `${t.type} runs keep failing`,
        score: round(40 + 40 * t.failureRate + cap(2 * t.failed, 20)),
        reasons,
        recommendedAction: `Read the failed ${t.type} runs (GET /api/tasks/runs?type=${t.type}&status=failed) and fix the cause before triggering it again.`,
      };
    });
}

function approvalSignal(snapshot: ControlPlaneSnapshot, now: number): TriageSignal[] {
  const aged = snapshot.approvals.items.filter((a) => ageMs(a.requestedAt, now) > SCORING.approvalAgeMs);
  const oldestMs = snapshot.approvals.oldestRequestedAt ? ageMs(snapshot.approvals.oldestRequestedAt, now) : 0;
  if (oldestMs <= SCORING.approvalAgeMs) return [];
  const hours = oldestMs / HOUR;
  const agedCount = Math.max(1, aged.length);
  const types = [...new Set(aged.map((a) => a.type))];
  return [
    {
      source: 'approval-queue',
      classification: 'approval-backlog',
      severity: oldestMs > SCORING.approvalCriticalMs ? 'critical' : 'warning',
      title: `${agedCount} approval${agedCount === 1 ? '' : 's'} pending longer than 1 h`,
      score: round(30 + cap(hours, 30) + cap(2 * agedCount, 20)),
      reasons: [
        `oldest pending for ${round(hours)} h (since ${snapshot.approvals.oldestRequestedAt})`,
        `${snapshot.approvals.pendingCount} pending in all${types.length ? `; aged: ${types.join(', ')}` : ''}`,
      ],
      recommendedAction: 'Decide the pending approvals (GET /api/approvals/pending, POST /api/approvals/:id/decision).',
    },
  ];
}

function serviceSignals(snapshot: ControlPlaneSnapshot): TriageSignal[] {
  return snapshot.agents
    .filter((a) => a.serviceExpected && !a.entrypointAvailable)
    .map((a) => ({
      source: 'agent-registry' as const,
      classification: 'service-runtime',
      severity: 'warning' as const,
      title: `service-expected agent ${a.id} cannot be spawned`,
      score: 50,
      reasons: [`unit ${a.serviceUnitName ?? 'unnamed'} expected, but the agent has no runnable entrypoint`, `serves ${a.lanes.join(', ')}`],
      recommendedAction: `Build the agent (npm run build) or set its manifest entrypoint, then run system-monitor.`,
    }));
}

function retrySignal(snapshot: ControlPlaneSnapshot): TriageSignal[] {
  const n = snapshot.queue.retrying;
  if (n === 0) return [];
  return [
    {
      source: 'retry-queue',
      classification: 'retry-recovery',
      severity: n >= 3 ? 'warning' : 'info',
      title: `${n} run${n === 1 ? '' : 's'} waiting for an automatic retry`,
      score: round(15 + cap(5 * n, 30)),
      reasons: [`${n} runs failed an attempt and are scheduled to retry`],
      recommendedAction: 'Watch the retrying runs; a run that exhausts its retries fails for good.',
    },
  ];
}

function milestoneSignal(snapshot: ControlPlaneSnapshot): TriageSignal[] {
  const latest = snapshot.milestones[0];
  if (!latest || latest.status === 'completed') return [];
  return [
    {
      source: 'milestones',
      classification: 'proof-delivery',
      severity: 'warning',
      title: `latest milestone ${latest.milestoneId || latest.kind} is ${latest.status}`,
      score: 35,
      reasons: [`${latest.kind} milestone at ${latest.at}: ${latest.summary}`],
      recommendedAction: 'Check GET /api/milestones/latest and the run behind the milestone.',
    },
  ];
}

/** Every signal the snapshot carries, unranked. */
export function triageSignals(snapshot: ControlPlaneSnapshot, now: number): TriageSignal[] {
  return [
    ...ledgerSignals(snapshot, now),
    ...failingLaneSignals(snapshot),
    ...approvalSignal(snapshot, now),
    ...serviceSignals(snapshot),
    ...retrySignal(snapshot),
    ...milestoneSignal(snapshot),
  ];
}
