/** Where a command writes, and whether it may colour its words. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Raw text on the terminal's error stream, no newline added (a progress line rewritten in place). */
  progress: (text: string) => void;
  color: boolean;
  json: boolean;
  /** Columns a table may take: `$COLUMNS`, else the terminal's width; null into a pipe or file (no limit). */
  width: number | null;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function paint(output: Output, colour: Colour, text: string): string {
  return output.color ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}

/** Colour by run status word: green success, red failed, yellow waiting, grey cancelled or skipped. */
export function statusColour(status: string): Colour {
  if (status === 'success' || status === 'approved' || status === 'ok' || status === 'resolved') return 'green';
  if (status === 'failed' || status === 'rejected' || status === 'open' || status === 'critical' || status === 'down') return 'red';
  if (status === 'cancelled' || status === 'cancelling' || status === 'skipped') return 'grey';
  return 'yellow';
}

/** Visible width of a cell (colour codes take none; wide characters are counted as one). */
export function visibleWidth(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

export function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s+/g, ' ');
}

/** `label  value` lines for one record, labels aligned. */
export function fields(pairs: ReadonlyArray<[string, unknown]>): string {
  const shown = pairs.filter(([, v]) => v !== undefined && v !== null && v !== '');
  const pad = Math.max(0, ...shown.map(([k]) => k.length));
  return shown.map(([k, v]) => `${k.padEnd(pad)}  ${cell(v)}`).join('\n');
}

/** "3.2 s", "1 min 04 s", "120 ms". */
export function duration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${String(Math.round((ms % 60_000) / 1000)).padStart(2, '0')} s`;
}

/**
 * A time as `YYYY-MM-DD HH:MM:SS UTC`: the service's instants shown in one zone that says so,
 * whatever offset they were written with and wherever the terminal is.
 */
export function when(iso: unknown): string {
  const at = typeof iso === 'string' ? new Date(iso) : null;
  if (at === null || Number.isNaN(at.getTime())) return cell(iso);
  const text = at.toISOString();
  return `${text.slice(0, 10)} ${text.slice(11, 19)} UTC`;
}

/** The time of day of an instant, `HH:MM:SS UTC` (event and log lines). */
export function clock(iso: unknown): string {
  const full = when(iso);
  return full.endsWith(' UTC') ? full.slice(11) : full;
}
