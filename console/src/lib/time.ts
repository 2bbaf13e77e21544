/**
 * Times and durations as people read them: "3 min ago", "in 2 h 5 min", "1.2 s". The exact
 * instant stays available (the title of a <time> element) for anyone who needs it.
 */
const UNITS: Array<[limitMs: number, unitMs: number, unit: string]> = [
  [60_000, 1000, 's'],
  [3_600_000, 60_000, 'min'],
  [86_400_000, 3_600_000, 'h'],
  [Infinity, 86_400_000, 'd'],
];

/**
 * A duration in milliseconds in at most two units: "850 ms", "4.2 s", "3 min 10 s", "2 d 4 h".
 * Every part is truncated, never rounded, so no part reaches its unit's limit ("1 min 60 s",
 * "1000 ms", "10.0 s" cannot appear): 59.6 s reads "59 s", 119.9 s "1 min 59 s".
 */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—';
  const abs = Math.abs(ms);
  if (abs < 1000) return `${Math.floor(abs)} ms`;
  if (abs < 10_000) return `${(Math.floor(abs / 100) / 10).toFixed(1)} s`;
  const index = UNITS.findIndex(([limit]) => abs < limit);
  const [, unitMs, unit] = UNITS[index]!;
  const whole = Math.floor(abs / unitMs);
  const previous = UNITS[index - 1];
  if (!previous) return `${whole} ${unit}`;
  const rest = Math.floor((abs - whole * unitMs) / previous[1]);
  return rest > 0 ? `${whole} ${unit} ${rest} ${previous[2]}` : `${whole} ${unit}`;
}

/** "3 min ago" or "in 5 min" relative to `now`; "just now" within five seconds. */
export function formatRelative(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  if (!Number.isFinite(at)) return iso;
  const delta = at - now;
  if (Math.abs(delta) < 5000) return 'just now';
  return delta < 0 ? `${formatDuration(-delta)} ago` : `in ${formatDuration(delta)}`;
}

const ABSOLUTE = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const ABSOLUTE_UTC = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone: 'UTC' });

/** The instant in the reader's locale and zone: "27 Nov 2026, 02:31:22". */
export function formatAbsolute(iso: string | null | undefined): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  return Number.isFinite(at) ? ABSOLUTE.format(at) : iso;
}

/** The instant in UTC, for schedules whose cron is read in UTC: "27 Nov 2026, 06:17 UTC". */
export function formatUtc(iso: string): string {
  const at = Date.parse(iso);
  return Number.isFinite(at) ? `${ABSOLUTE_UTC.format(at)} UTC` : iso;
}

/** An ISO-8601 instant as the service writes them. */
export const isIsoInstant = (value: unknown): value is string =>
  typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
