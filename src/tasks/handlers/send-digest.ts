import type { TaskHandler } from '../handler-types.js';
import type { OrchestratorState } from '../types.js';
import { failure } from './outcome.js';
import { describeFetchError, outboundSignal } from './outbound.js';

const DEFAULT_HISTORY_LIMIT = 20;
const HIGH_URGENCY_LIMIT = 10;

export interface Digest {
  kind: 'task-orchestrator-digest';
  generatedAt: string;
  lastStartedAt: string | null;
  tasksProcessed: number;
  statusCounts: { completed: number; error: number; pending: number };
  recentTasks: Array<{ type: string; status: string; timestamp: string; durationMs: number; error?: string }>;
  highUrgencyDrafts: Array<{ itemTitle: string; itemUrl: string; relevanceScore: number; publishedAt: string }>;
}

/** The digest body: recent task history with counts by status and the newest high-urgency drafts. */
export function buildDigest(state: OrchestratorState, now: Date, historyLimit: number): Digest {
  const statusCounts = { completed: 0, error: 0, pending: 0 };
  for (const record of state.taskHistory) statusCounts[record.status] += 1;
  return {
    kind: 'task-orchestrator-digest',
    generatedAt: now.toISOString(),
    lastStartedAt: state.lastStartedAt,
    tasksProcessed: state.tasksProcessed,
    statusCounts,
    recentTasks: state.taskHistory.slice(-historyLimit).map((r) => ({
      type: r.type,
      status: r.status,
      timestamp: r.timestamp,
      durationMs: r.durationMs,
      ...(r.error ? { error: r.error } : {}),
    })),
    highUrgencyDrafts: state.rssDrafts
      .filter((d) => d.urgency === 'high')
      .slice(-HIGH_URGENCY_LIMIT)
      .map((d) => ({ itemTitle: d.itemTitle, itemUrl: d.itemUrl, relevanceScore: d.relevanceScore, publishedAt: d.publishedAt })),
  };
}

/**
 * send-digest: POSTs the digest as JSON to config.digestTargetUrl (10 s timeout). Only the
 * target's host is ever reported: webhook URLs often carry a secret in their path or query.
 * No target, a refusal (non-2xx) or an unreachable target fails the run with the cause.
 */
export const sendDigest: TaskHandler = async (state, config, input) => {
  if (!config.digestTargetUrl) return failure('no notification target configured (digestTargetUrl)');
  let target: URL;
  try {
    target = new URL(config.digestTargetUrl);
  } catch {
    return failure('digestTargetUrl is not a valid URL');
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') {
    return failure(`digestTargetUrl must be http or https, not ${target.protocol.replace(':', '')}`);
  }
  const requested = input.payload.historyLimit;
  const historyLimit =
    typeof requested === 'number' && Number.isInteger(requested) && requested >= 1 ? Math.min(requested, 50) : DEFAULT_HISTORY_LIMIT;
  const digest = buildDigest(state, input.clock.now(), historyLimit);

  let response: Response;
  try {
    response = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'task-orchestrator-send-digest' },
      body: JSON.stringify(digest),
      signal: outboundSignal(input.signal),
    });
  } catch (err) {
    return failure(`digest not delivered to ${target.host}: ${describeFetchError(err)}`);
  }
  // The answer's body is not needed; cancelling it releases the connection.
  await response.body?.cancel();
  if (!response.ok) {
    return failure(`digest not delivered: ${target.host} answered HTTP ${response.status}`);
  }
  return {
    status: 'completed',
    result: {
      delivered: true,
      targetHost: target.host,
      itemCount: digest.recentTasks.length + digest.highUrgencyDrafts.length,
      statusCode: response.status,
    },
  };
};
