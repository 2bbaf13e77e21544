/** A sentence that may go into the summary, with what scoring needs. */
export interface Candidate {
  /** Position in the source; the summary keeps source order. */
  index: number;
  text: string;
  stems: Set<string>;
  wordCount: number;
}

export interface ScoredCandidate extends Candidate {
  score: number;
}

/** Documents tend to state their point first; the lead sentence gets a small lift, not a guarantee. */
export const LEAD_BONUS = 1.2;
/** Shorter units are fragments ("See below.") that read badly out of context. */
export const MIN_WORDS_PER_SENTENCE = 4;
/** Two sentences sharing more than this share of their terms say the same thing; keep one. */
const REDUNDANCY_LIMIT = 0.6;
const MAX_DEFAULT_SENTENCES = 7;

/**
 * Scores a sentence by the normalized frequency of its distinct terms (a term's weight divided
 * by the weight of the most frequent term). The sum is divided by the square root of the term
 * count: long sentences still gain from covering more of the subject, but not in proportion
 * to their length alone.
 */
export function scoreCandidates(candidates: Candidate[], weights: Map<string, number>): ScoredCandidate[] {
  const maxWeight = Math.max(1, ...weights.values());
  return candidates.map((candidate, order) => {
    let sum = 0;
    for (const stem of candidate.stems) sum += (weights.get(stem) ?? 0) / maxWeight;
    const base = candidate.stems.size === 0 ? 0 : sum / Math.sqrt(candidate.stems.size);
    return { ...candidate, score: order === 0 ? base * LEAD_BONUS : base };
  });
}

/** How many sentences a summary of `available` sentences gets when the caller does not say. */
export function defaultSentenceCount(available: number): number {
  const bySize = Math.round(Math.sqrt(available));
  return Math.max(1, Math.min(MAX_DEFAULT_SENTENCES, bySize, available - 1));
}

function overlap(a: Set<string>, b: Set<string>): number {
  let shared = 0;
  for (const stem of a) if (b.has(stem)) shared += 1;
  const union = a.size + b.size - shared;
  return union === 0 ? 1 : shared / union;
}

/**
 * Takes the best-scoring sentences (ties to the earlier one), skipping near-duplicates of a
 * sentence already taken, and returns them in source order so the summary reads as the
 * source does.
 */
export function selectSentences(scored: ScoredCandidate[], count: number): ScoredCandidate[] {
  const ranked = [...scored].sort((a, b) => b.score - a.score || a.index - b.index);
  const picked: ScoredCandidate[] = [];
  for (const candidate of ranked) {
    if (picked.length >= count) break;
    if (picked.some((p) => overlap(p.stems, candidate.stems) > REDUNDANCY_LIMIT)) continue;
    picked.push(candidate);
  }
  return picked.sort((a, b) => a.index - b.index);
}
