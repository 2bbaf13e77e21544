import type { RunRecord } from '../../domain/run-record.js';
import type { CommunityRecord } from '../../domain/orchestrator-state.js';

function isCommunityRecord(value: unknown): value is CommunityRecord {
  if (typeof value !== 'object' || value === null) return false;
  const r = value as Record<string, unknown>;
  return (
    typeof r.timestamp === 'string' &&
    typeof r.postId === 'string' &&
    typeof r.postTitle === 'string' &&
    typeof r.subcommunity === 'string' &&
    typeof r.draftResponse === 'string' &&
    typeof r.confidence === 'number'
  );
}

/**
 * The CommunityRecords a successful community-response run drafted, for the OrchestratorState
 * (`communityResponses`, last 100). The worker cannot write state, so it answers them in its
 * result and the service records them once the run is final.
 */
export function communityRecordsOf(run: RunRecord): CommunityRecord[] {
  if (run.type !== 'community-response' || run.status !== 'success') return [];
  const result = run.result as Record<string, unknown> | null;
  const records = result && Array.isArray(result.communityRecords) ? result.communityRecords : [];
  return records.filter(isCommunityRecord).map((r) => ({
    timestamp: r.timestamp,
    postId: r.postId,
    postTitle: r.postTitle,
    subcommunity: r.subcommunity,
    draftResponse: r.draftResponse,
    confidence: Math.min(1, Math.max(0, r.confidence)),
    ...(typeof r.approved === 'boolean' ? { approved: r.approved } : {}),
  }));
}
