import { createHash } from 'node:crypto';

/**
 * The contract between the service and the community-response lane. A worker cannot reach the
 * coordination port, so the service claims each selected item (dedupe) and charges the daily
 * budget before the spawn, and hands the outcome over under the service-reserved key
 * `__communityResponse`, with the locations the lane reads and appends to.
 */
export const COMMUNITY_RESPONSE_PAYLOAD_KEY = '__communityResponse';

/** One community queue item as the lane reads it. */
export interface QueueItem {
  /** Stable identity of the item: postId, else the URL, else a hash of the title. */
  itemKey: string;
  postId: string;
  title: string;
  body: string;
  url: string | null;
  subcommunity: string;
  selectedForDraft: boolean;
  reviewReason: string | null;
}

export type ItemGate = 'claimed' | 'duplicate' | 'over-budget';

export interface CommunityBudgetSnapshot {
  /** UTC day the budget counts (YYYY-MM-DD). */
  day: string;
  limit: number;
  /** Units charged today, this run's included, never above `limit`. */
  used: number;
  remaining: number;
}

export interface CommunityResponseGate {
  /** Absolute path of `<knowledgePackDir>/latest.json`. */
  knowledgePackPath: string;
  /** Absolute docs folder, to tell whether a cited doc changed after the pack was built. */
  docsPath: string;
  draftsLogPath: string;
  queueLogPath: string;
  /**
   * Review leads (reviewReason set) of an approved run: the operator's approval selected them,
   * so they are drafted as if selectedForDraft were true.
   */
  selectedByApproval: string[];
  /** Per selected item: claimed for this run, already drafted by another run, or over the daily budget. */
  items: Array<{ itemKey: string; gate: ItemGate; claimedBy?: string }>;
  budget: CommunityBudgetSnapshot;
  /**
   * Always null: the gate names no provider. A model, when one is configured, is reached through
   * the attempt's model channel (`__model`, docs/models.md), never from here.
   */
  provider: null;
}

function text(value: unknown, max: number): string {
  return typeof value === 'string' ? value.trim().slice(0, max) : '';
}

function keyOf(postId: string, url: string | null, title: string): string {
  if (postId) return `post:${postId}`;
  if (url) return `url:${createHash('sha256').update(url).digest('hex').slice(0, 24)}`;
  return `title:${createHash('sha256').update(title.toLowerCase()).digest('hex').slice(0, 24)}`;
}

function itemOf(raw: Record<string, unknown>): QueueItem | null {
  const title = text(raw.title ?? raw.postTitle ?? raw.itemTitle, 500);
  const body = text(raw.body ?? raw.question ?? raw.content, 20_000);
  const url = text(raw.url ?? raw.itemUrl, 2048) || null;
  const postId = text(raw.postId, 200);
  if (!title && !body && !url && !postId) return null;
  return {
    itemKey: keyOf(postId, url, title || body),
    postId: postId || keyOf('', url, title || body),
    title: title || url || postId || body.slice(0, 80),
    body,
    url,
    subcommunity: text(raw.subcommunity, 200) || 'general',
    selectedForDraft: raw.selectedForDraft === true,
    reviewReason: text(raw.reviewReason, 100) || null,
  };
}

/**
 * The queue items of a community-response payload: `items[]` when given, else the single item
 * the top-level fields describe (the form nightly-batch queues: itemUrl, itemTitle,
 * selectedForDraft). Items without any identifying field are dropped; duplicates keep the first.
 */
export function queueItemsOf(payload: Record<string, unknown>): QueueItem[] {
  const raw = Array.isArray(payload.items)
    ? payload.items.filter((i): i is Record<string, unknown> => typeof i === 'object' && i !== null && !Array.isArray(i))
    : [payload];
  const seen = new Set<string>();
  const items: QueueItem[] = [];
  for (const entry of raw.slice(0, 100)) {
    const item = itemOf(entry);
    if (!item || seen.has(item.itemKey)) continue;
    seen.add(item.itemKey);
    items.push(item);
  }
  return items;
}

/** An item is drafted when the queue selected it, or when an approval of its review selected it. */
export function isSelected(item: QueueItem, selectedByApproval: readonly string[]): boolean {
  return item.selectedForDraft || selectedByApproval.includes(item.itemKey);
}
