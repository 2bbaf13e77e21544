import type { RunRecord } from '../domain/run-record.js';
import type { ConditionReading } from './incident-condition.js';
import { normalize, resolveRecord, withHistory } from './record.js';
import type { IncidentRecord, RemediationTask, VerificationVerdict } from './types.js';

/** Posture words of the lanes (system-monitor, code-index, deployment-ops, release-readiness) that mean "nothing wrong". */
const CLEAR_POSTURES = new Set(['healthy', 'ready', 'go', 'ok']);

/** What a verifier run's own result says: its posture or verdict, and whether that is clear. */
export interface VerifierReading {
  clear: boolean;
  seen: string;
}

const fieldsOf = (value: unknown): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {});

/**
 * Reads a verifier's result: a `posture` (a worker's result, or an in-process handler's
 * `result.result`) is clear only when it is one of CLEAR_POSTURES, a `verdict` only when it is
 * `passed`. A result that reports neither says nothing against the verification.
 */
export function readVerifierResult(result: unknown): VerifierReading {
  const outer = fieldsOf(result);
  for (const fields of [outer, fieldsOf(outer.result)]) {
    if (typeof fields.posture === 'string') return { clear: CLEAR_POSTURES.has(fields.posture), seen: `posture ${fields.posture}` };
    if (typeof fields.verdict === 'string') return { clear: fields.verdict === 'passed', seen: `verdict ${fields.verdict}` };
  }
  return { clear: true, seen: 'no posture reported' };
}

/** A verifier task whose run succeeded and whose verification is not judged yet. */
export const awaitsVerdict = (task: RemediationTask) => task.role === 'verifier' && task.status === 'success' && !task.verdict;

/**
 * Judges one verification from the verifier's own reading and the incident's condition. It
 * passes only when both are clear: a verifier run that succeeded proves nothing by itself.
 */
export function verdictOf(task: RemediationTask, run: RunRecord, condition: ConditionReading, now: Date): VerificationVerdict {
  const reading = readVerifierResult(run.result);
  const summary = `${task.taskType} run ${run.runId}: ${reading.seen}; checked ${condition.checked}: ${condition.seen}`;
  const outcome = !reading.clear || condition.state === 'present' ? 'failed' : condition.state === 'cleared' ? 'passed' : 'inconclusive';
  return { outcome, summary, at: now.toISOString() };
}

/**
 * Records a verdict on its verifier task (and in history); a passed verification resolves the
 * incident, since its condition was just seen gone.
 */
export function withVerdict(record: IncidentRecord, taskId: string, verdict: VerificationVerdict, now: Date): IncidentRecord {
  const at = now.toISOString();
  const tasks = record.remediationTasks.map((t) => (t.taskId === taskId ? { ...t, verdict, updatedAt: at } : t));
  const next = normalize(
    withHistory(
      { ...record, remediationTasks: tasks, updatedAt: at },
      { at, kind: 'verification-updated', actor: 'incident-policy', summary: `verification ${verdict.outcome}: ${verdict.summary}`, data: { taskId, outcome: verdict.outcome } },
    ),
  );
  if (verdict.outcome !== 'passed' || next.status === 'resolved') return next;
  return resolveRecord(next, now, `remediation verified: ${verdict.summary}`, 'incident-policy') ?? next;
}
