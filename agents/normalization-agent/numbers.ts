/** Plain decimal notation: optional sign, digits with an optional fraction, optional exponent. */
const PLAIN = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
/** Comma thousands separators: a group of 1–3 digits, then groups of exactly three, then an optional dot fraction. */
const GROUPED = /^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;

/**
 * Reads a number from text, conservatively. Accepted: `42`, `-3.5`, `1e3`, and comma thousands
 * separators in groups of three (`1,234,567.89`). Refused rather than guessed: a decimal comma
 * or any other comma (`1,5` might mean 1.5 or 15), dot or space grouping (`1.234.567`,
 * `1 234`), currency signs, hex, `NaN` and `Infinity`.
 */
export function parseNumber(text: string): number | null {
  if (PLAIN.test(text)) return Number(text);
  if (GROUPED.test(text)) return Number(text.replace(/,/g, ''));
  return null;
}
