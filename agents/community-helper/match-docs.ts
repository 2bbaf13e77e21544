import { tokenize } from '../summarization-agent/terms.js';
import type { PackDoc } from './knowledge-pack.js';

/** Where a term is found in a doc, and what that is worth: a title or concept hit names the subject. */
const WEIGHTS = { title: 3, concepts: 3, path: 2, summary: 1 } as const;
/** Below this a doc shares words with the question but is not about it. */
export const MIN_MATCH_SCORE = 3;
/** At most this many docs ground one draft. */
export const MAX_CITATIONS = 2;

export interface DocMatch {
  doc: PackDoc;
  score: number;
  matchedTerms: string[];
}

export function termsOf(text: string): Set<string> {
  return new Set(tokenize(text).flatMap((t) => (t.stem && t.stem.length > 2 ? [t.stem] : [])));
}

function fieldTerms(doc: PackDoc): Record<keyof typeof WEIGHTS, Set<string>> {
  return {
    title: termsOf(doc.title),
    concepts: termsOf(doc.concepts.join(' ')),
    path: termsOf(doc.path.replace(/\.[a-z0-9]+$/i, '').replace(/[/_.-]+/g, ' ')),
    summary: termsOf(doc.summary),
  };
}

/**
 * The pack docs that answer a question, best first: each distinct question term scores the
 * weight of the best field it appears in (title or concepts 3, path 2, summary 1). Ties go to the
 * doc listed first in the pack, so the same pack always grounds a question the same way.
 */
export function matchDocs(question: string, docs: PackDoc[]): DocMatch[] {
  const terms = [...termsOf(question)];
  if (terms.length === 0) return [];
  const matches: Array<DocMatch & { order: number }> = [];
  docs.forEach((doc, order) => {
    const fields = fieldTerms(doc);
    let score = 0;
    const matchedTerms: string[] = [];
    for (const term of terms) {
      const weight = Math.max(...(Object.keys(WEIGHTS) as Array<keyof typeof WEIGHTS>).map((f) => (fields[f].has(term) ? WEIGHTS[f] : 0)));
      if (weight === 0) continue;
      score += weight;
      matchedTerms.push(term);
    }
    if (score >= MIN_MATCH_SCORE) matches.push({ doc, score, matchedTerms, order });
  });
  return matches
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, MAX_CITATIONS)
    .map(({ doc, score, matchedTerms }) => ({ doc, score, matchedTerms }));
}

/**
 * 0–1: how much of the question the best doc covers, judged on at most five question terms
 * (a long post is not less answerable for being long), each at the title/concept weight.
 */
export function confidenceOf(question: string, best: DocMatch | undefined): number {
  if (!best) return 0;
  const considered = Math.min(5, termsOf(question).size);
  const ratio = best.score / (WEIGHTS.title * Math.max(1, considered));
  return Math.round(Math.min(0.95, ratio) * 100) / 100;
}
