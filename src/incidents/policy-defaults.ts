import { getCatalogEntry } from '../runtime/catalog.js';
import type { IncidentPolicy, IncidentSeverity, IncidentSource } from './types.js';
import { docSyncType } from '../lanes/doc-sync/definition.js';
import { incidentTriageType } from '../lanes/incident-triage/definition.js';
import { driftRepairType } from '../lanes/drift-repair/definition.js';
import { qaVerificationType } from '../lanes/qa-verification/definition.js';
import { systemMonitorType } from '../lanes/system-monitor/definition.js';

/** Minutes from opening to the SLA breach, by severity. */
export const TARGET_SLA_MINUTES: Record<IncidentSeverity, number> = { critical: 30, warning: 120, info: 480 };

const KNOWLEDGE_CLASSES = new Set(['knowledge', 'repair']);
/**
 * Incidents no lane can remediate: an approval backlog needs decisions, and a run that failed
 * without retrying failed on its input or its lane's verdict (a health check fixes neither).
 */
const OPERATOR_CLASSES = new Set(['approval-backlog', 'run-failure']);

/** The owner an operator-facing queue gets when no lane owns the work. */
export const OPERATOR_OWNER = 'operators';

/**
 * The policy an incident gets when it opens (see docs/incidents.md for the table): knowledge and
 * repair incidents are remediated by drift-repair and verified by doc-sync; an approval backlog
 * and a run that failed without retries are the operators', and so are stale or contradicting docs
 * the knowledge index reports; everything else is checked by system-monitor, and verified by
 * qa-verification when the incident names a workspace scope, else by a second system-monitor
 * reading. Every breach escalates to incident-triage.
 */
export function defaultPolicyFor(classification: string, severity: IncidentSeverity, scope: string | null, source?: IncidentSource): IncidentPolicy {
  const knowledge = KNOWLEDGE_CLASSES.has(classification);
  // Stale or contradicting docs (the knowledge index's own signals) need a writer: regenerating
  // the pack would not change what the docs say, so no lane is queued for them.
  const operatorOnly = OPERATOR_CLASSES.has(classification) || source === 'knowledge';
  return {
    policyId: `default:${classification}`,
    autoRetryBlockedRemediation: true,
    maxAutoRemediationAttempts: 2,
    autoEscalateOnBreach: true,
    remediationTaskType: operatorOnly ? null : knowledge ? driftRepairType.type : systemMonitorType.type,
    verifierTaskType: operatorOnly ? null : knowledge ? docSyncType.type : scope ? qaVerificationType.type : systemMonitorType.type,
    escalationTaskType: incidentTriageType.type,
    targetSlaMinutes: TARGET_SLA_MINUTES[severity],
  };
}

/** An alert's routing labels name its owner. */
export function ownerLabelFor(labels: Record<string, string> | undefined): string | null {
  const owner = labels?.owner ?? labels?.team;
  return owner && owner.trim() !== '' ? owner.trim().slice(0, 100) : null;
}

/** The agent serving the policy's remediation lane owns the incident; without a lane, the operators. */
export function policyOwnerFor(policy: IncidentPolicy, suggestedOwner: string | null): string {
  if (suggestedOwner) return suggestedOwner;
  const agentId = policy.remediationTaskType ? getCatalogEntry(policy.remediationTaskType)?.agentId : null;
  return agentId ?? OPERATOR_OWNER;
}

/** Payload of a task a policy starts; `__incident*` keys link the run back (clients cannot set them). */
export function policyTaskPayload(taskType: string, incident: { incidentId: string; title: string; scope: string | null }): Record<string, unknown> {
  const link = { __incidentId: incident.incidentId };
  switch (taskType) {
    case driftRepairType.type:
      return { requestedBy: 'incident-policy', notes: `incident ${incident.incidentId}: ${incident.title}`.slice(0, 2000), ...link };
    case qaVerificationType.type:
      return { target: incident.scope ?? '.', suite: 'smoke', mode: 'execute', ...link };
    case systemMonitorType.type:
      return { type: 'health', ...link };
    default:
      return link;
  }
}
