import { CacheTags, type CacheInvalidator } from '../../domain/cache-invalidation.js';
import type { StateStore } from '../../store/types.js';
import type { BlockedAttempt, LaneDefinition } from '../../runtime/lanes.js';
import { COMMUNITY_RESPONSE_PAYLOAD_KEY } from '../../worker-sdk/community-response.js';
import { createCommunityResponseGate, type CommunityGateDeps } from './gate.js';
import { leadReviewImpact } from './lead-review.js';
import { communityRecordsOf } from './records.js';

export interface CommunityResponseLaneDeps extends CommunityGateDeps {
  store: StateStore;
  invalidator: CacheInvalidator;
}

/** Every selected item was refused by shared coordination: nothing is spawned, the attempt is blocked. */
function blockedAttempt(reason: string, gate: { items: unknown; budget: unknown }): BlockedAttempt {
  return {
    reason,
    result: { success: false, error: reason, coordination: { items: gate.items, budget: gate.budget } },
    operatorSummary: `Not spawned: ${reason}`,
    recommendedNextActions: [
      'Read the existing drafts in the community drafts log before asking for another one.',
      'Raise communityResponse.dailyLlmBudget or trigger again after the UTC day rolls over when the budget is spent.',
    ],
    specialistContract: {
      role: 'community-helper',
      workflowStage: 'draft',
      deliverable: 'community reply drafts',
      status: 'refused',
      refusalReason: reason,
      escalationReason: null,
    },
  };
}

/**
 * community-response on the service side: dedupe and the daily budget through the coordination
 * port before the spawn (a worker cannot reach it), the lead-review words of the approval screen,
 * and the drafted CommunityRecords written into the OrchestratorState once the run succeeded.
 */
export function communityResponseLane(deps: CommunityResponseLaneDeps): LaneDefinition {
  const prepare = createCommunityResponseGate(deps);
  return {
    type: 'community-response',
    async beforeSpawn(run) {
      const prepared = await prepare(run);
      return {
        blocked: prepared.blocked ? blockedAttempt(prepared.blocked, prepared.gate) : null,
        input: { [COMMUNITY_RESPONSE_PAYLOAD_KEY]: prepared.gate },
        // A failed attempt gives its item claims back, so the items are not stuck as "already drafted".
        onFailure: prepared.release,
      };
    },
    approvalImpact: leadReviewImpact,
    async afterFinish(run) {
      // The worker cannot write state: it answers its records and the service keeps them (last 100).
      const records = communityRecordsOf(run);
      if (records.length === 0) return;
      await deps.store.mutateState((state) => ({ ...state, communityResponses: [...state.communityResponses, ...records] }));
      await deps.invalidator.invalidate([CacheTags.proof]);
    },
  };
}
