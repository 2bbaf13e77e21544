import type { IncidentRecord } from './api-types.js';

/**
 * When the incident's SLA runs out: the escalation's due time if the policy set one, else the
 * current episode's opening plus the policy's target minutes; none once resolved.
 */
export function slaDueAt(incident: Pick<IncidentRecord, 'status' | 'openedAt' | 'policy' | 'escalation'>): string | null {
  if (incident.status === 'resolved') return null;
  if (incident.escalation?.dueAt) return incident.escalation.dueAt;
  const minutes = incident.policy?.targetSlaMinutes;
  const opened = Date.parse(incident.openedAt);
  if (!minutes || !Number.isFinite(opened)) return null;
  return new Date(opened + minutes * 60_000).toISOString();
}
