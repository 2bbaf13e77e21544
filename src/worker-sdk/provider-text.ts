/**
 * Checks a lane applies to a provider's text before it becomes a result. The service has already
 * withheld answers carrying its own secrets; these catch what a lane can judge itself: text that
 * looks like a credential, figures its material does not hold, and text over its length cap.
 */

/** Credential shapes: API-key prefixes, private-key blocks, bearer tokens, long unbroken tokens. */
const SECRET_SHAPES: readonly RegExp[] = [
  /\b(?:sk|pk|rk)-[A-Za-z0-9_-]{16,}/,
  /-----BEGIN [A-Z ]*PRIVATE KEY-----/,
  /\bBearer\s+[A-Za-z0-9._~+/-]{20,}/i,
  /\b(?:AKIA|ASIA)[A-Z0-9]{16}\b/,
  /\b[A-Za-z0-9+/_-]{40,}={0,2}(?![A-Za-z0-9+/_-])/,
];

export function looksLikeSecret(text: string): boolean {
  return SECRET_SHAPES.some((shape) => shape.test(text));
}

export function countWords(text: string): number {
  return text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;
}

/** Figures (digits, with their separators) the text states that its source never does: invented numbers. */
export function figuresNotIn(text: string, source: string): string[] {
  const figures = (s: string) => new Set((s.match(/\d+(?:[.,:]\d+)*/g) ?? []).map((f) => f.replace(/[.,:]+$/, '')));
  const known = figures(source);
  return [...figures(text)].filter((f) => !known.has(f));
}

/**
 * Why a provider's text may not be used, or null when it may: empty, over `maxWords`, shaped
 * like a credential, or stating figures `source` does not.
 */
export function providerTextProblem(text: string, source: string, maxWords: number): string | null {
  if (text.trim() === '') return 'the answer was empty';
  const words = countWords(text);
  if (words > maxWords) return `the answer ran ${words} words, over the cap of ${maxWords}`;
  if (looksLikeSecret(text)) return 'the answer contained text shaped like a credential';
  const invented = figuresNotIn(text, source);
  if (invented.length > 0) return `the answer stated figures its material does not (${invented.slice(0, 5).join(', ')})`;
  return null;
}
