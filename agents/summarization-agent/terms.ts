import { STOPWORDS } from './stopwords.js';

/** One word of a sentence; `stem` is null for words that are not terms (stopwords, numbers). */
export interface Token {
  surface: string;
  stem: string | null;
}

const WORD = /[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu;

/**
 * Folds plural and possessive forms together ("migrations", "migration's" → "migration") so a
 * subject counts once however it is inflected. Deliberately light: a full stemmer would merge
 * words an operator reads as different ("operate", "operations").
 */
export function stem(word: string): string {
  let w = word.replace(/['’]s$/, '');
  if (w.length <= 3) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (w.endsWith('sses')) return w.slice(0, -2);
  if (w.endsWith('s') && !/(?:ss|us|is)$/.test(w)) w = w.slice(0, -1);
  return w;
}

/** Lower-cased words of a text, each marked with its term stem when it is a term. */
export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const surface = match[0].replace(/’/g, "'");
    const bare = surface.replace(/\./g, '');
    const isTerm = bare.length >= 2 && !STOPWORDS.has(bare) && !STOPWORDS.has(surface) && !/^[\d.,'-]+$/.test(surface);
    tokens.push({ surface, stem: isTerm ? stem(surface) : null });
  }
  return tokens;
}
