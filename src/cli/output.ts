/** Where a command writes, and whether it may colour its words. */
export interface Output {
  out: (text: string) => void;
  err: (text: string) => void;
  /** Raw text on the terminal's error stream, no newline added (a progress line rewritten in place). */
  progress: (text: string) => void;
  color: boolean;
  json: boolean;
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, grey: 90, bold: 1 } as const;
export type Colour = keyof typeof CODES;

export function paint(output: Output, colour: Colour, text: string): string {
  return output.color ? `\u001b[${CODES[colour]}m${text}\u001b[0m` : text;
}

/** Colour by run status word: green success, red failed, yellow waiting, grey cancelled. */
export function statusColour(status: string): Colour {
  if (status === 'success' || status === 'approved' || status === 'ok' || status === 'resolved') return 'green';
  if (status === 'failed' || status === 'rejected' || status === 'open' || status === 'critical' || status === 'down') return 'red';
  if (status === 'cancelled' || status === 'cancelling') return 'grey';
  return 'yellow';
}

/** Visible width of a cell (colour codes take none; wide characters are counted as one). */
function width(text: string): number {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;]*m/g, '')].length;
}

function cell(value: unknown): string {
  if (value === null || value === undefined || value === '') return '-';
  if (Array.isArray(value)) return value.map(cell).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value).replace(/\s+/g, ' ');
}

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  /** Cut longer cells with an ellipsis. */
  max?: number;
  colour?: (row: Row) => Colour | null;
}

/** Rows as an aligned table with a header line; `empty` when there are none. */
export function table<Row>(output: Output, rows: readonly Row[], columns: readonly Column<Row>[], empty: string): string {
  if (rows.length === 0) return empty;
  const cells = rows.map((row) =>
    columns.map((c) => {
      let text = cell(c.value(row));
      if (c.max !== undefined && [...text].length > c.max) text = `${[...text].slice(0, c.max - 1).join('')}…`;
      return text;
    }),
  );
  const widths = columns.map((c, i) => Math.max(width(c.header), ...cells.map((r) => width(r[i]!))));
  const line = (parts: string[]) => parts.map((p, i) => (i === parts.length - 1 ? p : p + ' '.repeat(widths[i]! - width(p)))).join('  ').trimEnd();
  const header = line(columns.map((c) => c.header.toUpperCase()));
  const body = cells.map((r, rowIndex) =>
    line(
      r.map((text, i) => {
        const colour = columns[i]!.colour?.(rows[rowIndex]!);
        return colour ? paint(output, colour, text) : text;
      }),
    ),
  );
  return [paint(output, 'bold', header), ...body].join('\n');
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

/** An ISO time as `YYYY-MM-DD HH:MM:SS` (UTC), the way tables show it. */
export function when(iso: unknown): string {
  return typeof iso === 'string' && iso.length >= 19 ? `${iso.slice(0, 10)} ${iso.slice(11, 19)}` : cell(iso);
}
