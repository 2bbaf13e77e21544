/**
 * Milliseconds since the epoch of an ISO 8601 instant, as Date.parse gives them. The stores write
 * instants as `Date#toISOString` does (`2026-03-01T12:00:00.000Z`); that form is read digit by
 * digit, which costs a claim a fraction of Date.parse (a claim among 100 keys parses 200 of them,
 * docs/queue.md "Cost"). Any other text goes to Date.parse.
 */
export function isoMs(text: string): number {
  if (text.length !== 24 || text.charCodeAt(23) !== Z || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(10) !== T) return Date.parse(text);
  if (text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON || text.charCodeAt(19) !== DOT) return Date.parse(text);
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  const ms = digits(text, 20, 3);
  // Out of range fields (a 13th month, a 31st of a 30-day month, a 25th hour, a letter: -1) are left to Date.parse.
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59 || ms < 0 || year < 0) return Date.parse(text);
  return ((daysFromEpoch(year, month, day) * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + ms;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Days from 1970-01-01 to the date (proleptic Gregorian; H. Hinnant's days_from_civil). */
function daysFromEpoch(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month > 2 ? month - 3 : month + 9) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

const Z = 90;
const DASH = 45;
const T = 84;
const COLON = 58;
const DOT = 46;

/** The decimal number in `length` characters from `from`; -1 when one is not a digit. */
function digits(text: string, from: number, length: number): number {
  let n = 0;
  for (let i = from; i < from + length; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}
