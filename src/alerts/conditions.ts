import type { AlertRule } from '../config/alerts.js';
import type { RunRecord } from '../domain/run-record.js';
import type { RunQuery } from '../store/types.js';
import type { ActiveCondition } from './types.js';

/** The reads a rule's condition needs: runs from the store, open incidents from the ledger. */
export interface ConditionSources {
  listRuns(query: RunQuery): Promise<{ items: RunRecord[] }>;
  /** Incidents not resolved, with their escalation level. */
  openIncidents(): Promise<Array<{ incidentId: string; title: string; severity: string; classification: string; status: string; escalationLevel: number }>>;
}

/** Runs looked at per rule and pass: a rule about more than this many runs at once has fired anyway. */
const SCAN_LIMIT = 200;

function minutes(ms: number): string {
  return `${Math.round(ms / 60_000)} min`;
}

/**
 * Runs that ended as the rule's status within its dedupe window, grouped by task type. `failed`
 * takes failed attempts with a retry left (`retrying`) too unless `finalFailureOnly` is set.
 */
async function finishedRuns(rule: AlertRule, sources: ConditionSources, now: number): Promise<ActiveCondition[]> {
  const { status, type, finalFailureOnly } = rule.match;
  const statuses: RunRecord['status'][] = status === 'failed' && !finalFailureOnly ? ['failed', 'retrying'] : [status!];
  const since = now - rule.dedupeWindowSeconds * 1000;
  const recent: RunRecord[] = [];
  for (const runStatus of statuses) {
    const { items } = await sources.listRuns({ status: runStatus, ...(type ? { type } : {}), order: 'newest', limit: SCAN_LIMIT });
    recent.push(...items.filter((run) => Date.parse(run.finishedAt ?? run.updatedAt) >= since));
  }
  const byType = new Map<string, RunRecord[]>();
  for (const run of recent) byType.set(run.type, [...(byType.get(run.type) ?? []), run]);
  return [...byType].map(([runType, runs]) => {
    const latest = runs.reduce((a, b) => ((a.finishedAt ?? a.updatedAt) >= (b.finishedAt ?? b.updatedAt) ? a : b));
    const word = statuses.length > 1 ? 'failed (retries included)' : statuses[0];
    return {
      ruleId: rule.id,
      subject: runType,
      summary: `${runs.length} ${runType} run(s) ${word} in the last ${rule.dedupeWindowSeconds} s; latest ${latest.runId}${latest.error ? `: ${latest.error.slice(0, 200)}` : ''}`,
      labels: { type: runType, runId: latest.runId },
    };
  });
}

async function longRunning(rule: AlertRule, sources: ConditionSources, now: number): Promise<ActiveCondition[]> {
  const limitMs = rule.match.runningLongerThanMinutes! * 60_000;
  const { items } = await sources.listRuns({ status: 'running', ...(rule.match.type ? { type: rule.match.type } : {}), order: 'oldest', limit: SCAN_LIMIT });
  return items
    .filter((run) => run.startedAt !== null && now - Date.parse(run.startedAt) > limitMs)
    .map((run) => ({
      ruleId: rule.id,
      subject: run.runId,
      summary: `${run.type} run ${run.runId} has been running for ${minutes(now - Date.parse(run.startedAt!))}`,
      labels: { type: run.type, runId: run.runId },
    }));
}

async function expiringApprovals(rule: AlertRule, sources: ConditionSources, now: number): Promise<ActiveCondition[]> {
  const withinMs = rule.match.approvalExpiringWithinMinutes! * 60_000;
  const { items } = await sources.listRuns({ status: 'pending', queueState: 'held', ...(rule.match.type ? { type: rule.match.type } : {}), order: 'oldest', limit: SCAN_LIMIT });
  return items.flatMap((run) => {
    const expiresAt = run.approval.expiresAt;
    if (run.approval.status !== 'pending' || !expiresAt || Date.parse(expiresAt) - now > withinMs) return [];
    return [
      {
        ruleId: rule.id,
        subject: run.runId,
        summary: `approval of ${run.type} run ${run.runId} expires at ${expiresAt}`,
        labels: { type: run.type, runId: run.runId, approvalId: run.taskId, expiresAt },
      },
    ];
  });
}

/** Each held run whose approval waits for a decision. */
async function pendingApprovals(rule: AlertRule, sources: ConditionSources): Promise<ActiveCondition[]> {
  const { items } = await sources.listRuns({ status: 'pending', queueState: 'held', ...(rule.match.type ? { type: rule.match.type } : {}), order: 'oldest', limit: SCAN_LIMIT });
  return items
    .filter((run) => run.approval.status === 'pending')
    .map((run) => ({
      ruleId: rule.id,
      subject: run.runId,
      summary: `${run.type} run ${run.runId} waits for an approval (${run.approval.reason ?? 'approval required'})`,
      labels: { type: run.type, runId: run.runId, approvalId: run.taskId },
    }));
}

async function stalledQueue(rule: AlertRule, sources: ConditionSources, now: number): Promise<ActiveCondition[]> {
  const olderThanMs = rule.match.oldestPendingOlderThanSeconds! * 1000;
  const { items } = await sources.listRuns({ status: 'pending', queueState: 'ready', ...(rule.match.type ? { type: rule.match.type } : {}), order: 'oldest', limit: 1 });
  const oldest = items[0];
  if (!oldest || now - Date.parse(oldest.createdAt) <= olderThanMs) return [];
  return [
    {
      ruleId: rule.id,
      subject: rule.match.type ?? 'queue',
      summary: `the oldest pending run (${oldest.runId}) has waited ${Math.round((now - Date.parse(oldest.createdAt)) / 1000)} s`,
      labels: { runId: oldest.runId, type: oldest.type },
    },
  ];
}

async function incidents(rule: AlertRule, sources: ConditionSources): Promise<ActiveCondition[]> {
  const open = await sources.openIncidents();
  // `opened` counts active incidents (a watching one is under its threshold); `escalated` any escalated one.
  const matching = open.filter((i) => (rule.match.incident === 'escalated' ? i.escalationLevel > 0 : i.status === 'active'));
  return matching.map((i) => ({
    ruleId: rule.id,
    subject: i.incidentId,
    summary: `${rule.match.incident === 'escalated' ? `escalated (level ${i.escalationLevel})` : 'open'} ${i.severity} incident: ${i.title}`,
    labels: { incidentId: i.incidentId, classification: i.classification, incidentSeverity: i.severity },
  }));
}

/** The subjects a rule's condition holds for at `now`. */
export async function activeConditions(rule: AlertRule, sources: ConditionSources, now: number): Promise<ActiveCondition[]> {
  const { match } = rule;
  if (match.status !== undefined) return finishedRuns(rule, sources, now);
  if (match.runningLongerThanMinutes !== undefined) return longRunning(rule, sources, now);
  if (match.approvalExpiringWithinMinutes !== undefined) return expiringApprovals(rule, sources, now);
  if (match.approvalPending !== undefined) return pendingApprovals(rule, sources);
  if (match.oldestPendingOlderThanSeconds !== undefined) return stalledQueue(rule, sources, now);
  return incidents(rule, sources);
}
