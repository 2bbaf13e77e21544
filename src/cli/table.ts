import { cell, paint, visibleWidth, type Colour, type Output } from './output.js';

/**
 * How a column gives way when the table is wider than the terminal:
 * - `cut`: free text, shortened with an ellipsis: first to a comfortable width, shorter once the
 *   minor columns are gone, and left out when even that is not enough;
 * - `drop`: a minor column, left out (the rightmost first) before free text is cut short;
 * - `wrap`: an id an operator copies: never shortened, wrapped onto more lines (last resort).
 * A column without `fit` keeps its width (status words, times).
 */
export type Fit = 'cut' | 'drop' | 'wrap';

export interface Column<Row> {
  header: string;
  value: (row: Row) => unknown;
  fit?: Fit;
  /** A `cut` column's widest cell even on a wide terminal. */
  max?: number;
  colour?: (row: Row) => Colour | null;
}

const GAP = 2;
/** Free text is cut to this before minor columns go, so what a row says outranks its details. */
const COMFORTABLE_TEXT = 40;
/** Free text cut shorter than this says too little to keep; an id wraps at no less. */
const NARROWEST_TEXT = 20;
const NARROWEST_ID = 10;

const chars = (text: string) => [...text];

function cutTo(text: string, width: number): string {
  const all = chars(text);
  return all.length <= width ? text : `${all.slice(0, Math.max(1, width - 1)).join('')}…`;
}

function wrapTo(text: string, width: number): string[] {
  const all = chars(text);
  if (all.length <= width) return [text];
  const lines: string[] = [];
  for (let i = 0; i < all.length; i += width) lines.push(all.slice(i, i + width).join(''));
  return lines;
}

/**
 * Column widths (null: dropped) for a terminal `budget` columns wide (null: no limit): cut
 * columns shrink to a comfortable width, widest first; then drop columns go, right to left;
 * then cut columns shrink further, and go; then wrap columns shrink. Never below the header,
 * so a very narrow terminal still overflows.
 */
export function fitWidths(natural: readonly number[], columns: ReadonlyArray<Pick<Column<unknown>, 'header' | 'fit'>>, budget: number | null): Array<number | null> {
  const widths: Array<number | null> = [...natural];
  if (budget === null) return widths;
  const total = () => {
    const shown = widths.filter((w): w is number => w !== null);
    return shown.reduce((a, b) => a + b, 0) + GAP * Math.max(0, shown.length - 1);
  };
  const shrink = (fit: Fit, narrowest: number) => {
    const floor = (i: number) => Math.min(natural[i]!, Math.max(narrowest, chars(columns[i]!.header).length));
    for (;;) {
      const excess = total() - budget;
      if (excess <= 0) return;
      let widest = -1;
      for (const [i, c] of columns.entries()) {
        const w = widths[i];
        if (c.fit === fit && w !== null && w !== undefined && w > floor(i) && (widest < 0 || w > widths[widest]!)) widest = i;
      }
      if (widest < 0) return;
      widths[widest] = Math.max(floor(widest), widths[widest]! - excess);
    }
  };
  const drop = (fit: Fit) => {
    for (let i = columns.length - 1; i >= 0 && total() > budget; i--) if (columns[i]!.fit === fit) widths[i] = null;
  };
  shrink('cut', COMFORTABLE_TEXT);
  drop('drop');
  shrink('cut', NARROWEST_TEXT);
  // Free text cut to its narrowest says little: it goes before an id is wrapped.
  drop('cut');
  shrink('wrap', NARROWEST_ID);
  // Room a dropped column left goes back to the free text that was cut for it.
  for (const [i, c] of columns.entries()) {
    const w = widths[i];
    if (c.fit === 'cut' && w !== null && w !== undefined) widths[i] = w + Math.max(0, Math.min(natural[i]! - w, budget - total()));
  }
  return widths;
}

/**
 * Rows as an aligned table with a header line, fitted to the output's width (`$COLUMNS`, else
 * the terminal's; unlimited into a pipe); `empty` when there are none.
 */
export function table<Row>(output: Output, rows: readonly Row[], columns: readonly Column<Row>[], empty: string): string {
  if (rows.length === 0) return empty;
  const texts = rows.map((row) =>
    columns.map((c) => {
      const text = cell(c.value(row));
      return c.fit === 'cut' && c.max !== undefined ? cutTo(text, c.max) : text;
    }),
  );
  const natural = columns.map((c, i) => Math.max(visibleWidth(c.header.toUpperCase()), ...texts.map((r) => visibleWidth(r[i]!))));
  const widths = fitWidths(natural, columns, output.width);
  const shown = columns.map((_, i) => i).filter((i) => widths[i] !== null);
  const lastShown = shown[shown.length - 1];
  const pad = (text: string, i: number) => (i === lastShown ? text : text + ' '.repeat(Math.max(0, widths[i]! - visibleWidth(text))));
  const header = shown.map((i) => pad(columns[i]!.header.toUpperCase(), i)).join(' '.repeat(GAP)).trimEnd();
  const body = rows.flatMap((row, r) => {
    const linesOf = shown.map((i) => {
      const text = texts[r]![i]!;
      const width = widths[i]!;
      if (columns[i]!.fit === 'wrap') return wrapTo(text, width);
      return [columns[i]!.fit === 'cut' ? cutTo(text, width) : text];
    });
    const height = Math.max(...linesOf.map((l) => l.length));
    return Array.from({ length: height }, (_, line) =>
      shown
        .map((i, k) => {
          const text = linesOf[k]![line] ?? '';
          const colour = text === '' ? null : columns[i]!.colour?.(row);
          return pad(colour ? paint(output, colour, text) : text, i);
        })
        .join(' '.repeat(GAP))
        .trimEnd(),
    );
  });
  return [paint(output, 'bold', header), ...body].join('\n');
}
