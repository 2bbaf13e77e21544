import { formatDuration } from '../lib/time.js';

/** Durations read the same on every page of the console (lib/time.ts). */
export { formatDuration };

/** A timestamp in the reader's locale, with seconds; the ISO text stays in the title. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return date.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' });
}

/** "just now", "5 s ago", "3 min ago". */
export function formatAgo(iso: string | null | undefined, now: number = Date.now()): string {
  if (!iso) return '—';
  const ms = now - new Date(iso).getTime();
  if (!Number.isFinite(ms)) return iso;
  // The browser's clock may trail the service's by a little: a moment ahead is still "just now".
  if (ms < 5000) return ms < -60_000 ? `in ${formatDuration(-ms)}` : 'just now';
  return `${formatDuration(ms)} ago`;
}

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Words from a field name: `recommendedNextActions` → "recommended next actions". */
export function labelOf(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
    .trim();
}

/** "14:02:07.120": the time of day of a timestamp, to the millisecond (events of one run are close). */
export function formatClock(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${date.toLocaleTimeString(undefined, { hour12: false })}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}
