import type { Row } from './results.js';

const COLUMNS = ['scenario', 'subject', 'metric', 'value', 'baseline', 'ratio', 'note'] as const;

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 100) return String(Math.round(value));
  return String(Number(value.toPrecision(3)));
}

function cells(row: Row): Record<(typeof COLUMNS)[number], string> {
  const unit = row.unit ? ` ${row.unit}` : '';
  const hint = row.better === 'higher' ? ' (higher is better)' : row.better === 'lower' ? ' (lower is better)' : '';
  return {
    scenario: row.scenario,
    subject: row.subject,
    metric: row.metric,
    value: row.value === null ? '-' : `${formatNumber(row.value)}${unit}`,
    baseline: row.baseline ? `${row.baseline.subject}: ${formatNumber(row.baseline.value)}${unit}` : '',
    ratio: row.ratioFailed ? 'failed' : row.ratio === undefined ? '' : row.ratio === null ? '-' : `${formatNumber(row.ratio)}x`,
    note: [row.durability ? `durability: ${row.durability}` : '', row.note ?? '', row.ratio !== undefined && row.ratio !== null ? hint.trim() : ''].filter(Boolean).join('; '),
  };
}

/** A fixed-width text table for the terminal. */
export function textTable(rows: Row[]): string {
  const data = rows.map(cells);
  const widths = COLUMNS.map((c) => Math.max(c.length, ...data.map((d) => d[c].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  const out = [line([...COLUMNS]), line(widths.map((w) => '-'.repeat(w)))];
  let last = '';
  for (const d of data) {
    if (last && d.scenario !== last) out.push('');
    last = d.scenario;
    out.push(line(COLUMNS.map((c) => d[c])));
  }
  return out.join('\n');
}

/** The same table in Markdown (for docs/performance.md). */
export function markdownTable(rows: Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const out = [`| ${COLUMNS.join(' | ')} |`, `|${COLUMNS.map(() => '---').join('|')}|`];
  for (const row of rows) {
    const d = cells(row);
    out.push(`| ${COLUMNS.map((c) => esc(d[c])).join(' | ')} |`);
  }
  return out.join('\n');
}
