import type { Token } from './terms.js';

/** The tokens of one source unit, as keyword ranking needs them. */
export interface TokenizedUnit {
  tokens: Token[];
  heading: boolean;
}

export interface Keyword {
  /** How the phrase reads in the source (its most common spelling). */
  phrase: string;
  /** The stems it covers: one for a word, two for a two-word phrase. */
  stems: string[];
  score: number;
}

/** A heading names its section, so its terms count as much as two mentions in the body. */
const HEADING_WEIGHT = 2;
/** A two-word phrase must recur before it counts as a phrase and not a coincidence. */
const MIN_PHRASE_OCCURRENCES = 2;
/**
 * A recurring phrase outranks its words alone: "database migration" said four times says more
 * about the text than "migration" said five times.
 */
const PHRASE_WEIGHT = 2;
export const MAX_KEYWORDS = 8;

interface Tally {
  weight: number;
  occurrences: number;
  firstSeen: number;
  stems: string[];
  spellings: Map<string, number>;
}

function add(tallies: Map<string, Tally>, key: string, stems: string[], spelling: string, weight: number, position: number): void {
  let tally = tallies.get(key);
  if (!tally) {
    tally = { weight: 0, occurrences: 0, firstSeen: position, stems, spellings: new Map() };
    tallies.set(key, tally);
  }
  tally.weight += weight;
  tally.occurrences += 1;
  tally.spellings.set(spelling, (tally.spellings.get(spelling) ?? 0) + 1);
}

/** The most frequent spelling; Map iteration order makes the first-seen spelling win ties. */
function commonSpelling(spellings: Map<string, number>): string {
  let best = '';
  let bestCount = 0;
  for (const [spelling, count] of spellings) {
    if (count > bestCount) {
      best = spelling;
      bestCount = count;
    }
  }
  return best;
}

/** Weighted occurrences of every term stem; the basis of sentence scores. */
export function termWeights(units: TokenizedUnit[]): Map<string, number> {
  const weights = new Map<string, number>();
  for (const unit of units) {
    const weight = unit.heading ? HEADING_WEIGHT : 1;
    for (const token of unit.tokens) {
      if (token.stem !== null) weights.set(token.stem, (weights.get(token.stem) ?? 0) + weight);
    }
  }
  return weights;
}

/**
 * Ranks what the text is about. Candidates are single terms and two-word phrases of adjacent
 * terms (no stopword between them, so "migration and rollback" is two subjects, not a phrase).
 * Once a phrase is chosen its words are not listed again on their own. Ties go to whatever the
 * text mentions first, which keeps the ranking deterministic.
 */
export function rankKeywords(units: TokenizedUnit[], limit = MAX_KEYWORDS): Keyword[] {
  const words = new Map<string, Tally>();
  const phrases = new Map<string, Tally>();
  let position = 0;
  for (const unit of units) {
    const weight = unit.heading ? HEADING_WEIGHT : 1;
    unit.tokens.forEach((token, i) => {
      position += 1;
      if (token.stem === null) return;
      add(words, token.stem, [token.stem], token.surface, weight, position);
      const next = unit.tokens[i + 1];
      if (next?.stem != null && next.stem !== token.stem) {
        add(phrases, `${token.stem} ${next.stem}`, [token.stem, next.stem], `${token.surface} ${next.surface}`, weight, position);
      }
    });
  }

  const candidates: Array<Tally & { score: number }> = [
    ...[...phrases.values()]
      .filter((tally) => tally.occurrences >= MIN_PHRASE_OCCURRENCES)
      .map((tally) => ({ ...tally, score: tally.weight * PHRASE_WEIGHT })),
    ...[...words.values()].map((tally) => ({ ...tally, score: tally.weight })),
  ].sort((a, b) => b.score - a.score || a.firstSeen - b.firstSeen || a.stems.length - b.stems.length);

  const covered = new Set<string>();
  const keywords: Keyword[] = [];
  for (const candidate of candidates) {
    if (keywords.length >= limit) break;
    if (candidate.stems.some((s) => covered.has(s))) continue;
    candidate.stems.forEach((s) => covered.add(s));
    keywords.push({ phrase: commonSpelling(candidate.spellings), stems: candidate.stems, score: candidate.score });
  }
  return keywords;
}

/**
 * Names the subject in a few words: the leading keyword, joined by the runner-up when that one
 * is nearly as prominent ("database migration and rollback").
 */
export function topicOf(keywords: Keyword[]): string {
  const [first, second] = keywords;
  if (!first) return '';
  if (second && second.score >= first.score * 0.5) return `${first.phrase} and ${second.phrase}`;
  return first.phrase;
}
