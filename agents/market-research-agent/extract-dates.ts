/** A date as the page states it, with its calendar day. */
export interface PageDate {
  text: string;
  /** YYYY-MM-DD. */
  date: string;
}

const MONTHS: ReadonlyArray<readonly [RegExp, number]> = [
  [/^jan/i, 1], [/^feb/i, 2], [/^mar/i, 3], [/^apr/i, 4], [/^may/i, 5], [/^jun/i, 6],
  [/^jul/i, 7], [/^aug/i, 8], [/^sep/i, 9], [/^oct/i, 10], [/^nov/i, 11], [/^dec/i, 12],
];
const MONTH = 'January|February|March|April|May|June|July|August|September|October|November|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sept|Sep|Oct|Nov|Dec';

const ISO = /\b(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?(?![\d-])/g;
const MONTH_DAY_YEAR = new RegExp(`\\b(${MONTH})\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'gi');
const DAY_MONTH_YEAR = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(${MONTH})\\.?,?\\s+(\\d{4})\\b`, 'gi');

function monthNumber(name: string): number {
  return MONTHS.find(([pattern]) => pattern.test(name))?.[1] ?? 0;
}

/** YYYY-MM-DD when the parts form a real calendar day (no 31 April, 29 February only in leap years). */
export function calendarDate(year: number, month: number, day: number): string | null {
  if (month < 1 || month > 12 || day < 1 || year < 1000) return null;
  const probe = new Date(Date.UTC(year, month - 1, day));
  if (probe.getUTCMonth() !== month - 1 || probe.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`;
}

export const MAX_DATES = 50;

/** Every date in `text` written as ISO 8601, "March 5, 2026" or "5 March 2026", in page order. */
export function extractDates(text: string): PageDate[] {
  const found: Array<PageDate & { at: number }> = [];
  const add = (at: number, raw: string, year: string, month: number, day: string) => {
    const date = calendarDate(Number(year), month, Number(day));
    if (date) found.push({ at, text: raw, date });
  };
  for (const m of text.matchAll(ISO)) add(m.index, m[0], m[1]!, Number(m[2]), m[3]!);
  for (const m of text.matchAll(MONTH_DAY_YEAR)) add(m.index, m[0], m[3]!, monthNumber(m[1]!), m[2]!);
  for (const m of text.matchAll(DAY_MONTH_YEAR)) add(m.index, m[0], m[3]!, monthNumber(m[2]!), m[1]!);
  found.sort((a, b) => a.at - b.at);
  const seen = new Set<string>();
  const dates: PageDate[] = [];
  for (const { text: raw, date } of found) {
    if (seen.has(raw)) continue;
    seen.add(raw);
    dates.push({ text: raw, date });
    if (dates.length >= MAX_DATES) break;
  }
  return dates;
}
