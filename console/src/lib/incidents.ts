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

/**
 * Whether the page offers Acknowledge: only on an open incident nobody took on yet. A resolved
 * incident has nothing left to take on (the service answers 409); if its signal returns it
 * reopens unacknowledged.
 */
export function offersAcknowledge(incident: Pick<IncidentRecord, 'status' | 'acknowledged'>): boolean {
  return incident.status !== 'resolved' && !incident.acknowledged;
}
