/**
 * Splits a chat message into words the way a shell would for the common cases: whitespace
 * separates, "double" and 'single' quotes keep spaces, a backslash escapes the next character.
 * Chat clients send the text whole, so the bridge does what a terminal does for `orch`.
 */
export function tokenize(text: string): { words: string[]; error: string | null } {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quote: '"' | "'" | null = null;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quote) {
      if (ch === quote || (quote === '"' && (ch === '\u201c' || ch === '\u201d'))) quote = null;
      else if (ch === '\\' && quote === '"' && i + 1 < text.length) current += text[++i];
      else current += ch;
      continue;
    }
    if (ch === '"' || ch === "'" || ch === '\u201c' || ch === '\u201d') {
      // Chat clients often turn straight quotes into curly ones.
      quote = ch === "'" ? "'" : '"';
      inWord = true;
      continue;
    }
    if (/\s/.test(ch)) {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
      continue;
    }
    if (ch === '\\' && i + 1 < text.length) current += text[++i];
    else current += ch;
    inWord = true;
  }
  if (quote) return { words, error: 'a quote is not closed' };
  if (inWord) words.push(current);
  return { words, error: null };
}
