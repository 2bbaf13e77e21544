const NAMED_ENTITIES: Readonly<Record<string, string>> = {
  amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', euro: '€', pound: '£', yen: '¥',
  cent: '¢', copy: '©', reg: '®', trade: '™', mdash: '—', ndash: '–', hellip: '…', middot: '·',
  rsquo: '’', lsquo: '‘', rdquo: '”', ldquo: '“', times: '×',
};

/** Decodes the character references pages commonly use; unknown named ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#x[\da-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#')) {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return Number.isFinite(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[ref.toLowerCase()] ?? whole;
  });
}

/** Collapses whitespace (non-breaking spaces included) to single spaces. */
export function squash(text: string): string {
  return text.replace(/[\s\u00a0]+/g, ' ').trim();
}

/** Markup that is never shown as text: comments, scripts, styles, templates. */
export function withoutHiddenMarkup(html: string): string {
  return html
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/<(script|style|template|noscript|svg)\b[\s\S]*?<\/\1\s*>/gi, ' ');
}

/** The text of an HTML fragment: tags become spaces, entities are decoded, whitespace collapsed. */
export function textOf(fragment: string): string {
  return squash(decodeEntities(fragment.replace(/<[^>]*>/g, ' ')));
}

/**
 * The visible text of a page, with block-level tags as line breaks so that a price in one table
 * cell is never read together with the number in the next.
 */
export function visibleText(html: string): string {
  const blocks = withoutHiddenMarkup(html)
    .replace(/<\/?(?:p|div|li|ul|ol|tr|td|th|table|section|article|header|footer|h[1-6]|br|hr|dt|dd|main|nav|aside)\b[^>]*>/gi, '\n')
    .replace(/<[^>]*>/g, ' ');
  return decodeEntities(blocks)
    .split('\n')
    .map(squash)
    .filter((line) => line !== '')
    .join('\n');
}
