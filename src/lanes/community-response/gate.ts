import { join } from 'node:path';
import type { Clock } from '../../clock.js';
import type { AppConfig } from '../../config/types.js';
import type { Coordination } from '../../coordination/types.js';
import { isSelected, queueItemsOf, type CommunityResponseGate, type ItemGate } from '../../worker-sdk/community-response.js';
import type { RunRecord } from '../../domain/run-record.js';

const HOUR_MS = 3_600_000;
/** The budget counter outlives its UTC day by a margin; the day is in its key, so it never spans two. */
const BUDGET_WINDOW_MS = 26 * HOUR_MS;

export interface CommunityGateDeps {
  coordination: Pick<Coordination, 'acquireLock' | 'releaseLock' | 'incrementWindow'>;
  clock: Clock;
  config: Pick<AppConfig, 'knowledgePackDir' | 'docsPath' | 'communityDraftsPath' | 'logsDir' | 'communityResponse'>;
}

export interface PreparedCommunityRun {
  gate: CommunityResponseGate;
  /** Set when selected items exist but none may be drafted: the run is coordination-blocked. */
  blocked: string | null;
  /** Gives back this run's item claims (after a failed attempt, so another run may draft them). */
  release(): Promise<void>;
}

export const itemClaimName = (itemKey: string) => `community-response:item:${itemKey}`;
export const budgetCounterKey = (day: string) => `community-response:llm-budget:${day}`;

function blockedReason(gated: Array<{ gate: ItemGate }>, limit: number): string | null {
  if (gated.length === 0 || gated.some((g) => g.gate === 'claimed')) return null;
  const duplicates = gated.filter((g) => g.gate === 'duplicate').length;
  const overBudget = gated.length - duplicates;
  const parts = [
    duplicates > 0 ? `${duplicates} already drafted by another run within the dedupe window` : null,
    overBudget > 0 ? `${overBudget} over the daily LLM budget (${limit} drafts per UTC day)` : null,
  ].filter((p): p is string => p !== null);
  return `shared coordination blocked every selected item: ${parts.join('; ')}`;
}

/**
 * The pre-spawn step of the community-response lane, on the service side because a worker
 * cannot reach the coordination port. For each selected item (selectedForDraft=true, or a
 * review lead of a run replayed after its approval), in order:
 * 1. dedupe: a claim on the item held by this run for the dedupe window (a lease in the
 *    coordination store, so every instance sees it; a retry of the same run re-takes its own
 *    claim, another run finds the item a duplicate);
 * 2. daily budget: one unit of today's counter per claimed item; past the limit the claim is
 *    given back and the item is over budget.
 * Items not selected are neither claimed nor charged: the lane reports them as skipped.
 */
export function createCommunityResponseGate(deps: CommunityGateDeps) {
  const { coordination, clock, config } = deps;
  return async function prepare(run: RunRecord): Promise<PreparedCommunityRun> {
    const queued = queueItemsOf(run.payload);
    // The replay of an approved review lead: the approval is what selects it.
    const selectedByApproval = run.approvedFromTaskId ? queued.filter((i) => i.reviewReason !== null).map((i) => i.itemKey) : [];
    const selected = queued.filter((item) => isSelected(item, selectedByApproval));
    const day = clock.now().toISOString().slice(0, 10);
    const limit = config.communityResponse.dailyLlmBudget;
    const dedupeMs = config.communityResponse.dedupeWindowHours * HOUR_MS;
    const items: CommunityResponseGate['items'] = [];
    const claims: string[] = [];
    let usedToday: number | null = null;

    for (const item of selected) {
      const name = itemClaimName(item.itemKey);
      if (!(await coordination.acquireLock(name, run.runId, dedupeMs))) {
        items.push({ itemKey: item.itemKey, gate: 'duplicate' });
        continue;
      }
      const { count } = await coordination.incrementWindow(budgetCounterKey(day), BUDGET_WINDOW_MS);
      usedToday = Math.min(count, limit);
      if (count > limit) {
        await coordination.releaseLock(name, run.runId);
        items.push({ itemKey: item.itemKey, gate: 'over-budget' });
        continue;
      }
      claims.push(name);
      items.push({ itemKey: item.itemKey, gate: 'claimed' });
    }

    const used = usedToday ?? 0;
    return {
      gate: {
        knowledgePackPath: join(config.knowledgePackDir, 'latest.json'),
        docsPath: config.docsPath,
        draftsLogPath: config.communityDraftsPath,
        queueLogPath: join(config.logsDir, 'queue-submissions.jsonl'),
        selectedByApproval,
        items,
        budget: { day, limit, used, remaining: Math.max(0, limit - used) },
        provider: null,
      },
      blocked: blockedReason(items, limit),
      release: async () => {
        for (const name of claims) await coordination.releaseLock(name, run.runId);
      },
    };
  };
}

export type CommunityResponseGateFn = ReturnType<typeof createCommunityResponseGate>;
