import { decodeEntities } from './entities.js';
import { countMismatch, recordOf, truncateRaw, uniqueColumns, type ExtractedRecord, type ParseOutcome, type Reject } from './table.js';

interface HtmlCell {
  text: string;
  colspan: number;
  rowspan: number;
}

interface HtmlRow {
  cells: HtmlCell[];
  line: number;
  start: number;
  end: number;
}

/** Spans beyond this are treated as this many: a typo like colspan="99999" must not explode a row. */
const MAX_SPAN = 100;
/** Tags that separate words when a cell holds them, so "<p>a</p><p>b</p>" reads "a b". */
const BREAKING_TAGS = new Set(['br', 'p', 'div', 'li', 'ul', 'ol', 'tr', 'td', 'th', 'table', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** A tag with its attributes; quoted attribute values may contain ">". */
const TAG = /<(\/?)([A-Za-z][A-Za-z0-9-]*)((?:[^>"']|"[^"]*"|'[^']*')*)>/g;

/**
 * Blanks comments and the contents of script, style and template elements, keeping their line
 * breaks so line numbers still match the source.
 */
function blankNonContent(html: string): string {
  const keepNewlines = (match: string) => match.replace(/[^\n]/g, ' ');
  return html
    .replace(/<!--[\s\S]*?(?:-->|$)/g, keepNewlines)
    .replace(/<(script|style|template)\b[\s\S]*?(?:<\/\1\s*>|$)/gi, keepNewlines);
}

function spanOf(attributes: string, name: string): number {
  const match = new RegExp(`\\b${name}\\s*=\\s*["']?\\s*(\\d+)`, 'i').exec(attributes);
  const value = match ? Number.parseInt(match[1]!, 10) : 1;
  return Math.min(MAX_SPAN, Math.max(1, value));
}

function cellText(raw: string): string {
  return decodeEntities(raw).replace(/\s+/g, ' ').trim();
}

/** Converts character offsets to 1-based line numbers; offsets are asked for in increasing order. */
function lineCounter(text: string): (offset: number) => number {
  let line = 1;
  let at = 0;
  return (offset) => {
    for (; at < offset; at += 1) if (text.charCodeAt(at) === 10) line += 1;
    return line;
  };
}

/**
 * Reads the rows of the first top-level table. End tags a browser would imply (`</td>`, `</tr>`)
 * may be missing. Markup inside a cell is stripped to its text; a table nested in a cell counts
 * as that cell's text. Also counts the top-level tables of the document.
 */
function readFirstTable(html: string): { rows: HtmlRow[]; tablesFound: number } {
  const rows: HtmlRow[] = [];
  const lineAt = lineCounter(html);
  let tablesFound = 0;
  let depth = 0;
  let inFirst = false;
  let inCaption = false;
  let row: HtmlRow | null = null;
  let cell: { raw: string; colspan: number; rowspan: number } | null = null;
  let textFrom = 0;

  const closeCell = () => {
    if (cell && row) row.cells.push({ text: cellText(cell.raw), colspan: cell.colspan, rowspan: cell.rowspan });
    cell = null;
  };
  const closeRow = (end: number) => {
    closeCell();
    if (row && row.cells.length > 0) rows.push({ ...row, end });
    row = null;
  };

  for (const match of html.matchAll(TAG)) {
    const offset = match.index;
    const between = html.slice(textFrom, offset);
    textFrom = offset + match[0].length;
    if (inFirst && cell && !inCaption) cell.raw += between;
    const closing = match[1] === '/';
    const name = match[2]!.toLowerCase();
    const attributes = match[3] ?? '';

    if (name === 'table') {
      if (!closing) {
        if (depth === 0) {
          tablesFound += 1;
          inFirst = tablesFound === 1;
        }
        depth += 1;
      } else if (depth > 0) {
        depth -= 1;
        if (depth === 0 && inFirst) {
          closeRow(offset);
          inFirst = false;
        }
      }
    }
    if (!inFirst) continue;
    if (depth > 1 || (depth === 1 && name === 'table')) {
      // Inside a nested table, its structure is only text of the outer cell.
      if (cell && BREAKING_TAGS.has(name)) cell.raw += ' ';
      continue;
    }
    if (name === 'caption') {
      inCaption = !closing;
    } else if (name === 'tr') {
      if (closing) closeRow(textFrom);
      else {
        closeRow(offset);
        row = { cells: [], line: lineAt(offset), start: offset, end: offset };
      }
    } else if (name === 'td' || name === 'th') {
      closeCell();
      if (!closing) {
        row ??= { cells: [], line: lineAt(offset), start: offset, end: offset };
        cell = { raw: '', colspan: spanOf(attributes, 'colspan'), rowspan: spanOf(attributes, 'rowspan') };
      }
    } else if (name === 'thead' || name === 'tbody' || name === 'tfoot') {
      closeRow(offset);
    } else if (cell && BREAKING_TAGS.has(name)) {
      cell.raw += ' ';
    }
  }
  if (inFirst) closeRow(html.length);
  return { rows, tablesFound };
}

/**
 * Lays rows out on a grid: a cell spanning several columns repeats its text in each, and a cell
 * spanning several rows carries its text down into the rows below, so every row lines up with
 * the header as it does on screen.
 */
function expandSpans(rows: HtmlRow[]): string[][] {
  const carried = new Map<number, { text: string; remaining: number }>();
  return rows.map((row) => {
    const out: string[] = [];
    let col = 0;
    const fillCarried = () => {
      for (let held = carried.get(col); held; held = carried.get(col)) {
        out[col] = held.text;
        held.remaining -= 1;
        if (held.remaining === 0) carried.delete(col);
        col += 1;
      }
    };
    for (const cell of row.cells) {
      fillCarried();
      for (let k = 0; k < cell.colspan; k += 1) {
        out[col] = cell.text;
        if (cell.rowspan > 1) carried.set(col, { text: cell.text, remaining: cell.rowspan - 1 });
        col += 1;
      }
    }
    fillCarried();
    return out;
  });
}

/**
 * The first HTML table: its first row (normally `<th>` cells) names the columns; each later row
 * must have as many cells after spans are laid out, or it is rejected with the line of its `<tr>`.
 * Cell text has tags stripped, character references decoded and whitespace collapsed.
 */
export function parseHtmlTable(html: string): ParseOutcome {
  const source = blankNonContent(html);
  const { rows, tablesFound } = readFirstTable(source);
  if (tablesFound === 0) return { problem: 'the HTML has no <table> element' };
  if (rows.length === 0) return { problem: 'the first HTML table has no rows with cells' };
  const grid = expandSpans(rows);
  const columns = uniqueColumns(grid[0]!);
  const records: ExtractedRecord[] = [];
  const rejects: Reject[] = [];
  grid.slice(1).forEach((cells, i) => {
    const row = rows[i + 1]!;
    if (cells.length !== columns.length) {
      rejects.push({ line: row.line, reason: countMismatch(columns.length, cells.length, 'cell'), raw: truncateRaw(html.slice(row.start, row.end).trim()) });
    } else records.push(recordOf(columns, cells));
  });
  return { columns, records, rejects, tablesFound };
}
