import type { GoalVerdict, Row } from './results.js';

const COLUMNS = ['scenario', 'subject', 'metric', 'value', 'baseline', 'ratio', 'note'] as const;

export function formatNumber(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 1000) return Math.round(value).toLocaleString('en-US');
  if (Math.abs(value) >= 100) return String(Math.round(value));
  return String(Number(value.toPrecision(3)));
}

export function rowCells(row: Row): Record<(typeof COLUMNS)[number], string> {
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
  const data = rows.map(rowCells);
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
    const d = rowCells(row);
    out.push(`| ${COLUMNS.map((c) => esc(d[c])).join(' | ')} |`);
  }
  return out.join('\n');
}

/** One goal's cells: its median ratio, the rounds' spread and the verdict (or why it is void). */
export function verdictCells(v: GoalVerdict): { goal: string; median: string; spread: string; verdict: string } {
  const unit = v.unit === 'x' ? 'x' : ` ${v.unit}`;
  const num = (n: number | null) => (n === null ? '-' : `${formatNumber(n)}${unit}`);
  return {
    goal: `${v.id}: ${v.goal}`,
    median: v.status === 'void' ? `(${num(v.median)})` : num(v.median),
    spread: v.rounds ? `${formatNumber(v.min)}-${formatNumber(v.max)}${unit} over ${v.rounds} rounds` : '-',
    verdict: v.status === 'void' ? `VOID: ${v.reasons.join('; ')}` : v.status,
  };
}

/** The goals' verdicts for the terminal, after the table of rows. */
export function verdictTable(verdicts: readonly GoalVerdict[]): string {
  const cols = ['goal', 'median', 'spread', 'verdict'] as const;
  const data = verdicts.map(verdictCells);
  const widths = cols.map((c) => Math.max(c.length, ...data.map((d) => d[c].length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i]!)).join('  ').trimEnd();
  return [line([...cols]), line(widths.map((w) => '-'.repeat(Math.min(w, 60)))), ...data.map((d) => line(cols.map((c) => d[c])))].join('\n');
}
