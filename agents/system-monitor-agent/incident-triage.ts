import { controlPlaneOf } from '../../src/worker-sdk/control-plane.js';
import type { LanePayload } from '../../src/worker-sdk/lane-definition.js';
import { refuseLane, specialistContract, type LaneRefusal, type LaneResult } from '../../src/worker-sdk/lane-result.js';
import { NO_SNAPSHOT_REASON, TRIAGE_IDENTITY } from './identity.js';
import { triageSignals, type Severity, type TriageSignal } from './triage-signals.js';

export const MAX_QUEUE = 50;

export type TriageEntry = TriageSignal & { rank: number };

export type IncidentTriageSuccess = LaneResult<{
  success: true;
  queue: TriageEntry[];
  counts: Record<Severity, number> & { total: number; fromLedger: number; derived: number };
  truncated: boolean;
  snapshotAt: string;
}>;

const SEVERITY_ORDER: Record<Severity, number> = { critical: 0, warning: 1, info: 2 };

/** Highest score first; ties by severity, then title, so the same snapshot ranks the same way. */
export function rankSignals(signals: TriageSignal[]): TriageEntry[] {
  return [...signals]
    .sort((a, b) => b.score - a.score || SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] || a.title.localeCompare(b.title))
    .map((signal, index) => ({ rank: index + 1, ...signal }));
}

/**
 * The incident-triage lane: open ledger incidents plus signals derived from the snapshot's runs,
 * approvals, agents and milestones (scored in triage-signals.ts), ranked into one queue. It
 * recommends, it never acknowledges, assigns or remediates.
 */
export function incidentTriage(payload: LanePayload<'incident-triage'>): IncidentTriageSuccess | LaneRefusal {
  const snapshot = controlPlaneOf(payload);
  if (!snapshot) return refuseLane(TRIAGE_IDENTITY, NO_SNAPSHOT_REASON, ['Trigger incident-triage through the service, which attaches the snapshot.']);
  const now = Date.parse(snapshot.generatedAt);
  const ranked = rankSignals(triageSignals(snapshot, Number.isFinite(now) ? now : Date.now()));
  const queue = ranked.slice(0, MAX_QUEUE);
  const count = (s: Severity) => ranked.filter((e) => e.severity === s).length;
  const fromLedger = ranked.filter((e) => e.source === 'incident-ledger').length;
  const top = queue[0];
  return {
    success: true,
    queue,
    counts: {
      total: ranked.length,
      critical: count('critical'),
      warning: count('warning'),
      info: count('info'),
      fromLedger,
      derived: ranked.length - fromLedger,
    },
    truncated: ranked.length > queue.length,
    snapshotAt: snapshot.generatedAt,
    operatorSummary: top
      ? `${ranked.length} item${ranked.length === 1 ? '' : 's'} to triage (${count('critical')} critical, ${count('warning')} warning; ${fromLedger} from the incident ledger). First: ${top.title} (${top.severity}, score ${top.score}).`
      : `Nothing to triage: no open incidents in the ledger and no failing lanes, aged approvals, unspawnable services or retries in the last ${snapshot.runs.window} runs.`,
    recommendedNextActions: top ? queue.slice(0, 3).map((e) => `#${e.rank} ${e.recommendedAction}`) : ['Run incident-triage again after new failures or alerts.'],
    specialistContract: specialistContract({ ...TRIAGE_IDENTITY, status: 'completed' }),
  };
}
