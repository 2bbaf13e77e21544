/** One unit of the source: a sentence, or a heading that names a section. */
export interface SourceSentence {
  text: string;
  /** Position in the source, counting headings too; summary order follows it. */
  index: number;
  paragraph: number;
  /** Headings name what follows; they inform the topic but are never picked as summary sentences. */
  heading: boolean;
}

const BULLET_MARKER = /^\s*(?:[-*+•‣◦▪–—]|\d{1,3}[.)]|[a-z]\))\s+/;
const MARKDOWN_HEADING = /^\s*#{1,6}\s+/;
const TERMINAL = /[.!?…:;,]["'”’)\]]*$/;

/**
 * Words that end with a period without ending the sentence. Titles and Latin shorthand never end
 * one ("Dr. Patel", "e.g. billing"); "etc.", "Inc." and the like are left out on purpose because
 * they end sentences far more often than they sit inside one.
 */
const ABBREVIATIONS = new Set(['mr', 'mrs', 'ms', 'dr', 'prof', 'sr', 'jr', 'st', 'mt', 'gen', 'capt', 'vs', 'cf', 'eg', 'ie', 'al', 'approx']);
/** Abbreviations that only continue the sentence before a number ("Sept. 14", "Fig. 2", "No. 5"). */
const NUMBER_ABBREVIATIONS = new Set([
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec',
  'fig', 'figs', 'no', 'nos', 'vol', 'ch', 'sec', 'pp', 'ref', 'ca', 'art',
]);

/**
 * Is the period at the end of `before` part of an abbreviation, an initial or a dotted acronym,
 * given the character that follows the space after it?
 */
function endsWithAbbreviation(before: string, next: string): boolean {
  const match = /([\p{L}.]+)\.$/u.exec(before);
  if (!match) return false;
  const word = match[1]!.toLowerCase();
  if (word.length === 1) return true; // an initial: "J. Smith"
  if (/^(?:\p{L}\.)+\p{L}$/u.test(word)) return true; // "e.g", "i.e", "u.s"
  const bare = word.replace(/\./g, '');
  return ABBREVIATIONS.has(bare) || (NUMBER_ABBREVIATIONS.has(bare) && /\d/.test(next));
}

function wordCountOf(text: string): number {
  return text.split(/\s+/).filter((w) => w !== '').length;
}

/** A short lead-in line ("Key risks:") or a title line over prose acts as a heading. */
function looksLikeHeading(line: string, next: string | undefined, firstInParagraph: boolean): boolean {
  if (MARKDOWN_HEADING.test(line)) return true;
  if (wordCountOf(line) > 8) return false;
  if (/:\s*$/.test(line)) return true;
  return firstInParagraph && next !== undefined && !TERMINAL.test(line.trim()) && /^\s*[\p{Lu}\d#*•-]/u.test(next);
}

/**
 * Splits running text at sentence ends: terminal punctuation (plus closing quotes or brackets),
 * whitespace, then a capital, digit or opening quote. Decimals ("3.5") never split because no
 * space follows their point; a lower-case continuation never splits ("approx. five").
 */
export function splitRunningText(text: string): string[] {
  const sentences: string[] = [];
  const boundary = /[.!?…]+["'”’)\]]*\s+(?=["'“‘([]?[\p{Lu}\d])/gu;
  let start = 0;
  for (let match = boundary.exec(text); match; match = boundary.exec(text)) {
    const end = match.index + match[0].trimEnd().length;
    const candidate = text.slice(start, end);
    const next = text.charAt(match.index + match[0].length);
    if (/\.$/.test(candidate) && !/\.\.+$/.test(candidate) && endsWithAbbreviation(candidate, next)) continue;
    sentences.push(candidate);
    start = match.index + match[0].length;
  }
  sentences.push(text.slice(start));
  return sentences.map((s) => s.replace(/\s+/g, ' ').trim()).filter((s) => /[\p{L}\p{N}]/u.test(s));
}

/**
 * Splits a document into sentences and headings. Blank lines separate paragraphs; bullet
 * items and headings are units of their own (their markers removed); other lines of a
 * paragraph are joined, because wrapped prose breaks lines mid-sentence.
 */
export function splitSentences(content: string): SourceSentence[] {
  const units: SourceSentence[] = [];
  const paragraphs = content.replace(/\r\n?/g, '\n').split(/\n\s*\n/);
  paragraphs.forEach((paragraph, paragraphIndex) => {
    const lines = paragraph.split('\n').filter((line) => line.trim() !== '');
    let running: string[] = [];
    const flush = () => {
      for (const text of splitRunningText(running.join(' '))) {
        units.push({ text, index: units.length, paragraph: paragraphIndex, heading: false });
      }
      running = [];
    };
    lines.forEach((line, lineIndex) => {
      if (looksLikeHeading(line, lines[lineIndex + 1], lineIndex === 0)) {
        flush();
        const text = line.replace(MARKDOWN_HEADING, '').replace(/[:\s]+$/, '').replace(/\s+/g, ' ').trim();
        if (text !== '') units.push({ text, index: units.length, paragraph: paragraphIndex, heading: true });
        return;
      }
      if (BULLET_MARKER.test(line)) {
        flush();
        running.push(line.replace(BULLET_MARKER, ''));
        return;
      }
      running.push(line.trim());
    });
    flush();
  });
  return units;
}
