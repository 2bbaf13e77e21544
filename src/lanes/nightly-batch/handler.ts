import { createHash } from 'node:crypto';
import type { FollowUpTask, StateHandler } from '../../runtime/handler-types.js';
import type { RSSRecord } from '../../domain/orchestrator-state.js';
import { SERVICE_RUN_ID_PREFIXES } from '../../domain/service-run-ids.js';
import { URGENCY_HIGH, URGENCY_MEDIUM } from '../rss-sweep/relevance.js';
import { typeWithRole } from '../built-in.js';

/** The spec's "top 10 draft items" offered as optional promotions. */
export const PROMOTION_LIMIT = 10;

export type DraftDecision = NonNullable<RSSRecord['draftDecision']>;

function needsManualReview(draft: RSSRecord): boolean {
  return (
    (draft.relevanceScore >= URGENCY_MEDIUM && draft.relevanceScore < URGENCY_HIGH) ||
    (draft.notes ?? '').toLowerCase().includes('manual-review')
  );
}

/**
 * The idempotency key of the follow-up for one draft. It is built from the day the draft was
 * swept, not the day of the batch, so the same draft maps to the same key on every rerun and
 * every later night: a draft already handed on (or waiting for approval) is suppressed as a
 * duplicate instead of being queued, or asked about, again.
 */
export function followUpKey(draft: RSSRecord): string {
  const day = /^\d{4}-\d{2}-\d{2}/.exec(draft.timestamp)?.[0] ?? 'undated';
  const hash = createHash('sha1').update(draft.itemUrl).digest('hex').slice(0, 16);
  return `${SERVICE_RUN_ID_PREFIXES.nightlyBatch}${day}:${hash}`;
}

/**
 * Sorts every draft into exactly one decision: high urgency is selected for drafting without a
 * person; medium relevance (or a manual-review note) must be approved; of the rest, the ten most
 * relevant are offered as optional promotions. Later drafts of the same itemUrl are ignored.
 */
export function classifyDrafts(drafts: RSSRecord[]): Map<RSSRecord, DraftDecision> {
  const decisions = new Map<RSSRecord, DraftDecision>();
  const seen = new Set<string>();
  const remaining: RSSRecord[] = [];
  for (const draft of drafts) {
    if (seen.has(draft.itemUrl)) continue;
    seen.add(draft.itemUrl);
    if (draft.urgency === 'high') decisions.set(draft, 'selected');
    else if (needsManualReview(draft)) decisions.set(draft, 'manual-review');
    else remaining.push(draft);
  }
  remaining
    .slice()
    .sort((a, b) => b.relevanceScore - a.relevanceScore || b.publishedAt.localeCompare(a.publishedAt))
    .forEach((draft, rank) => decisions.set(draft, rank < PROMOTION_LIMIT ? 'promotion' : 'none'));
  return decisions;
}

function followUp(draft: RSSRecord, decision: Exclude<DraftDecision, 'none'>): FollowUpTask {
  const payload: Record<string, unknown> = {
    source: 'nightly-batch',
    // Feeds bound neither: clipped to the community-response schema's limits, which the worker
    // checks again, and which the lane clips to anyway when it reads the item.
    itemUrl: draft.itemUrl.slice(0, 2048),
    itemTitle: draft.itemTitle.slice(0, 500),
    // Only priority leads are selected by the batch; for a review lead the approval is the
    // selection (its replay is drafted, see src/lanes/community-response/gate.ts).
    selectedForDraft: decision === 'selected',
    idempotencyKey: followUpKey(draft),
  };
  if (decision !== 'selected') {
    payload.requiresApproval = true;
    payload.reviewReason = decision;
  }
  // The type that drafts community replies (its module declares the role).
  return { type: typeWithRole('drafts-community-replies'), payload };
}

/**
 * nightly-batch: turns the RSS drafts in state into community-response work. Only high-urgency
 * drafts are queued directly; manual-review drafts become mandatory approvals and the top ten of
 * the rest optional promotion approvals, all through the one admission path.
 */
export const nightlyBatch: StateHandler<unknown> = async (state) => {
  const decisions = classifyDrafts(state.rssDrafts);
  const followUps: FollowUpTask[] = [];
  const counts = { selected: 0, 'manual-review': 0, promotion: 0, none: 0 };
  const byUrl = new Map<string, DraftDecision>();
  for (const [draft, decision] of decisions) {
    counts[decision] += 1;
    byUrl.set(draft.itemUrl, decision);
    if (decision !== 'none') followUps.push(followUp(draft, decision));
  }
  return {
    status: 'completed',
    result: {
      itemsConsidered: decisions.size,
      selectedForDraft: counts.selected,
      manualReviewApprovals: counts['manual-review'],
      promotionApprovals: counts.promotion,
    },
    followUps,
    // The queue itself records the selection: only priority leads carry selectedForDraft=true;
    // review leads wait for their approval, whose replay is what drafts them.
    stateUpdate: (s) => ({
      ...s,
      rssDrafts: s.rssDrafts.map((d) => {
        const decision = byUrl.get(d.itemUrl);
        return decision ? { ...d, selectedForDraft: decision === 'selected', draftDecision: decision } : d;
      }),
    }),
  };
};
