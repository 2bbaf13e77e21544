/** Calendar date, optionally with a time and a UTC offset (ISO 8601 extended format; a space may stand for "T"). */
const ISO_DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

function daysInMonth(year: number, month: number): number {
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  return [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]!;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * Normalizes an ISO 8601 date or date-time, or says why it is not one.
 * - `2026-03-01` stays a date: `2026-03-01`.
 * - A date-time with `Z` or an offset becomes UTC: `2026-03-01T10:00+01:00` → `2026-03-01T09:00:00.000Z`.
 * - A date-time without an offset keeps its wall-clock time, written out in full
 *   (`2026-03-01 10:00` → `2026-03-01T10:00:00`): no time zone is invented for it.
 * Impossible dates (2026-02-30, month 13, hour 24) are refused. Day-first or month-first forms
 * such as 03/04/2026 are refused too: which of them a source meant cannot be told from the value.
 */
export function normalizeDate(text: string): { value: string } | { problem: string } {
  const match = ISO_DATE_TIME.exec(text);
  if (!match) {
    return /^\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}$/.test(text)
      ? { problem: 'is not an ISO 8601 date (YYYY-MM-DD); day/month order cannot be told' }
      : { problem: 'is not an ISO 8601 date (YYYY-MM-DD)' };
  }
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  if (month < 1 || month > 12) return { problem: `is not a real date (month ${mo})` };
  if (day < 1 || day > daysInMonth(year, month)) return { problem: `is not a real date (${y}-${mo} has no day ${d})` };
  if (h === undefined) return { value: `${y}-${mo}-${d}` };
  const hour = Number(h);
  const minute = Number(mi);
  const second = s === undefined ? 0 : Number(s);
  if (hour > 23 || minute > 59 || second > 59) return { problem: 'is not a real time of day' };
  const millis = fraction === undefined ? 0 : Math.floor(Number(`0${fraction}`) * 1000);
  if (zone === undefined) {
    const secondsPart = fraction === undefined ? pad(second) : `${pad(second)}${fraction}`;
    return { value: `${y}-${mo}-${d}T${pad(hour)}:${pad(minute)}:${secondsPart}` };
  }
  let offsetMinutes = 0;
  if (zone.toUpperCase() !== 'Z') {
    const digits = zone.replace(':', '');
    const offsetHours = Number(digits.slice(1, 3));
    const offsetMins = Number(digits.slice(3, 5));
    if (offsetHours > 23 || offsetMins > 59) return { problem: `has an impossible UTC offset ${zone}` };
    offsetMinutes = (digits.startsWith('-') ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offsetMinutes * 60_000;
  return { value: new Date(utc).toISOString() };
}
