/**
 * What readers outside the incident ledger (extended health, dashboard, companion briefs,
 * control-plane snapshot) may know about incidents. The ledger implements it; readers depend on
 * this port only, so an aggregate never reaches into the ledger's storage.
 */
export const INCIDENT_SEVERITIES = ['critical', 'warning', 'info'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

export const INCIDENT_STATUSES = ['active', 'watching', 'resolved'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

/** One incident as an aggregate shows it: no history, no notes. */
export interface IncidentDigest {
  incidentId: string;
  title: string;
  classification: string;
  severity: IncidentSeverity;
  status: IncidentStatus;
  firstSeenAt: string;
  lastSeenAt: string;
  owner: string | null;
  acknowledged: boolean;
  remediationStatus: string;
  linkedRunIds: string[];
}

export interface IncidentRollup {
  /** `critical` when an open critical incident exists, `warning` when any is open, else `ok`. */
  overallStatus: 'ok' | 'warning' | 'critical';
  /** Every incident not resolved. */
  openCount: number;
  activeCount: number;
  watchingCount: number;
  resolvedCount: number;
  bySeverity: Record<IncidentSeverity, number>;
  topClassifications: Array<{
    classification: string;
    label: string;
    count: number;
    activeCount: number;
    watchingCount: number;
    highestSeverity: IncidentSeverity;
  }>;
}

export interface IncidentReadPort {
  rollup(): Promise<IncidentRollup>;
  /** Open incidents, most severe then most recently seen first. */
  listOpen(limit: number): Promise<IncidentDigest[]>;
}

