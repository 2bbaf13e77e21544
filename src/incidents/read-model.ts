import type { IncidentLedger } from './ledger.js';
import { byUrgency } from './ledger.js';
import { severityRank } from './record.js';
import type { IncidentDigest, IncidentReadPort, IncidentRollup, IncidentSeverity } from './read-port.js';
import type { IncidentRecord } from './types.js';

const CLASSIFICATION_LABELS: Record<string, string> = {
  'runtime-mode': 'Runtime mode',
  persistence: 'Persistence and coordination',
  'proof-delivery': 'Proof delivery',
  repair: 'Repairs',
  'retry-recovery': 'Retry recovery',
  'run-failure': 'Failed runs',
  knowledge: 'Knowledge freshness',
  'service-runtime': 'Resident services',
  'approval-backlog': 'Approval backlog',
  alert: 'External alerts',
};

export const classificationLabel = (classification: string) => CLASSIFICATION_LABELS[classification] ?? classification;

export function digestOf(record: IncidentRecord): IncidentDigest {
  return {
    incidentId: record.incidentId,
    title: record.title,
    classification: record.classification,
    severity: record.severity,
    status: record.status,
    firstSeenAt: record.firstSeenAt,
    lastSeenAt: record.lastSeenAt,
    owner: record.owner,
    acknowledged: record.acknowledged,
    remediationStatus: record.remediation.status,
    linkedRunIds: [...record.linkedRunIds],
  };
}

/** The rollup of a set of incidents (pure). */
export function rollupOf(records: IncidentRecord[]): IncidentRollup {
  const open = records.filter((r) => r.status !== 'resolved');
  const bySeverity: Record<IncidentSeverity, number> = { critical: 0, warning: 0, info: 0 };
  const classes = new Map<string, IncidentRollup['topClassifications'][number]>();
  for (const r of open) {
    bySeverity[r.severity] += 1;
    const entry = classes.get(r.classification) ?? {
      classification: r.classification,
      label: classificationLabel(r.classification),
      count: 0,
      activeCount: 0,
      watchingCount: 0,
      highestSeverity: r.severity,
    };
    entry.count += 1;
    if (r.status === 'active') entry.activeCount += 1;
    if (r.status === 'watching') entry.watchingCount += 1;
    if (severityRank(r.severity) > severityRank(entry.highestSeverity)) entry.highestSeverity = r.severity;
    classes.set(r.classification, entry);
  }
  const topClassifications = [...classes.values()].sort(
    (a, b) => severityRank(b.highestSeverity) - severityRank(a.highestSeverity) || b.count - a.count || a.classification.localeCompare(b.classification),
  );
  return {
    overallStatus: bySeverity.critical > 0 ? 'critical' : open.length > 0 ? 'warning' : 'ok',
    openCount: open.length,
    activeCount: open.filter((r) => r.status === 'active').length,
    watchingCount: open.filter((r) => r.status === 'watching').length,
    resolvedCount: records.length - open.length,
    bySeverity,
    topClassifications,
  };
}

/** The read port aggregates (extended health, dashboard, companion briefs) consume, over the ledger. */
export function createIncidentReadPort(ledger: Pick<IncidentLedger, 'all'>): IncidentReadPort {
  return {
    rollup: async () => rollupOf(await ledger.all()),
    listOpen: async (limit) =>
      (await ledger.all())
        .filter((r) => r.status !== 'resolved')
        .sort(byUrgency)
        .slice(0, Math.max(0, limit))
        .map(digestOf),
  };
}
