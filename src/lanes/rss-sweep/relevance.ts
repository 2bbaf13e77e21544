import type { RSSRecord } from '../../domain/orchestrator-state.js';

/** Points for a keyword found in the title, or else in the summary. */
const TITLE_HIT = 20;
const SUMMARY_HIT = 10;
/** Keywords can never carry an entry on their own past this: recency decides the rest. */
const KEYWORD_CAP = 70;
const HOUR = 3_600_000;
/** Recency points by age of the entry: fresher leads are worth answering first. */
const RECENCY_STEPS: Array<[maxAgeMs: number, points: number]> = [
  [24 * HOUR, 30],
  [72 * HOUR, 20],
  [7 * 24 * HOUR, 10],
];

export const URGENCY_HIGH = 70;
export const URGENCY_MEDIUM = 40;

export interface Relevance {
  relevanceScore: number;
  urgency: RSSRecord['urgency'];
  matchedKeywords: string[];
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Whole-word, case-insensitive: the keyword "ai" must not match "said". */
function mentions(haystack: string, keyword: string): boolean {
  return new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(keyword)}($|[^\\p{L}\\p{N}])`, 'iu').test(haystack);
}

export function urgencyOf(score: number): RSSRecord['urgency'] {
  if (score >= URGENCY_HIGH) return 'high';
  if (score >= URGENCY_MEDIUM) return 'medium';
  return 'low';
}

/**
 * Relevance 0–100 of one feed entry: keyword hits in the title (20 each) or summary (10 each),
 * capped at 70, plus recency (30 within a day, 20 within three days, 10 within a week). A
 * deterministic heuristic, so the same feed scores the same way on every sweep.
 */
export function scoreEntry(
  entry: { title: string; summary: string; publishedAt: Date | null },
  keywords: string[],
  now: Date,
): Relevance {
  const matchedKeywords: string[] = [];
  let keywordPoints = 0;
  for (const keyword of keywords) {
    if (mentions(entry.title, keyword)) keywordPoints += TITLE_HIT;
    else if (mentions(entry.summary, keyword)) keywordPoints += SUMMARY_HIT;
    else continue;
    matchedKeywords.push(keyword);
  }
  let recencyPoints = 0;
  if (entry.publishedAt) {
    const age = Math.max(0, now.getTime() - entry.publishedAt.getTime());
    recencyPoints = RECENCY_STEPS.find(([maxAge]) => age <= maxAge)?.[1] ?? 0;
  }
  const relevanceScore = Math.min(100, Math.min(KEYWORD_CAP, keywordPoints) + recencyPoints);
  return { relevanceScore, urgency: urgencyOf(relevanceScore), matchedKeywords };
}
