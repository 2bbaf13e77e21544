import { extractDates, type PageDate } from './extract-dates.js';
import { extractPrices, type Price } from './extract-prices.js';
import { decodeEntities, squash, textOf, visibleText, withoutHiddenMarkup } from './html-text.js';

export interface Heading {
  level: 1 | 2 | 3;
  text: string;
}

export interface PageFacts {
  title: string | null;
  headings: Heading[];
  prices: Price[];
  dates: PageDate[];
}

export const MAX_HEADINGS = 50;

function titleOf(html: string): string | null {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  const title = match ? textOf(match[1]!) : '';
  return title === '' ? null : title;
}

function headingsOf(html: string): Heading[] {
  const headings: Heading[] = [];
  for (const m of html.matchAll(/<h([1-3])\b[^>]*>([\s\S]*?)<\/h\1\s*>/gi)) {
    const text = textOf(m[2]!);
    if (text !== '') headings.push({ level: Number(m[1]) as Heading['level'], text });
    if (headings.length >= MAX_HEADINGS) break;
  }
  return headings;
}

/** Machine-readable dates of `<time datetime="…">` elements, which pages often show as "2 days ago". */
function timeElementText(html: string): string {
  return [...html.matchAll(/<time\b[^>]*\bdatetime\s*=\s*["']([^"']+)["']/gi)].map((m) => squash(decodeEntities(m[1]!))).join('\n');
}

/**
 * What a page states: its title, its h1–h3 headings in order, and the prices and dates in its
 * visible text. Only what is on the page is reported; nothing is inferred or completed.
 */
export function extractPage(html: string): PageFacts {
  const shown = withoutHiddenMarkup(html);
  const text = visibleText(html);
  const dates = extractDates(`${text}\n${timeElementText(shown)}`);
  return { title: titleOf(html), headings: headingsOf(shown), prices: extractPrices(text), dates };
}
