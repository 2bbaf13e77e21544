/**
 * docs/performance.md as a function of one bench results file: the current figures, one table
 * per scenario with its goals' verdicts, and the hand-written parts (bench/doc/*.md) around
 * them. Pure: the script bench/write-performance-doc.ts reads the files and writes the page.
 */
import type { Comparison, GoalVerdict, Row, RunReport, ScenarioResult } from './results.js';
import { formatNumber, rowCells, verdictCells } from './table.js';

/** The page's length limit: current figures, not a diary (the history is git's). */
export const MAX_LINES = 400;
/** Rows shown per scenario at most; fewer when the page would pass MAX_LINES (the rest stay in the results file). */
export const MAX_ROWS_PER_SCENARIO = 28;
const MIN_ROWS_PER_SCENARIO = 4;

export interface DocParts {
  /** How to run, how a goal is judged, self-checks, durability (bench/doc/intro.md). */
  intro: string;
  /** What bounds each goal (bench/doc/bounds.md). */
  bounds: string;
  /** The results file's path as the page names it. */
  source: string;
  /** A line about the run that its results file does not hold (the host's load seen beside it, ...). */
  note?: string;
}

/** The parts of a results file the page reads (older files lack comparisons and verdicts). */
export type DocReport = Pick<RunReport, 'startedAt' | 'finishedAt' | 'mode' | 'only' | 'machine'> & {
  scenarios: (Omit<ScenarioResult, 'comparisons'> & { comparisons?: Comparison[] })[];
  verdicts?: GoalVerdict[];
};

const esc = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const tableLine = (cells: string[]) => `| ${cells.map(esc).join(' | ')} |`;

const COLUMNS = ['subject', 'metric', 'value', 'baseline', 'ratio', 'spread', 'goal', 'verdict', 'note'];

function loadNote(m: Record<string, unknown>): string {
  const at = (v: unknown) => (Array.isArray(v) ? v.map((n) => formatNumber(Number(n))).join(' / ') : null);
  const start = at(m.loadAverage);
  const end = at(m.loadAverageAtEnd);
  if (!start && !end) return '';
  return ` Host load average (1 / 5 / 15 min) ${[start ? `at the start ${start}` : '', end ? `at the end ${end}` : ''].filter(Boolean).join(', ')}, on ${String(m.nproc ?? '?')} cores.`;
}

function header(report: DocReport, source: string, note: string | undefined): string[] {
  const m = report.machine;
  const fixture = m.fixture === true;
  const failed = report.scenarios.flatMap((s) => s.rows).filter((r) => r.failed).length;
  const checks = report.scenarios.flatMap((s) => s.rows).filter((r) => r.metric.startsWith('check:')).length;
  const minutes = (Date.parse(report.finishedAt) - Date.parse(report.startedAt)) / 60_000;
  const build = m.commit ? `build \`${String(m.commit)}\`${m.commitSubject ? ` ("${String(m.commitSubject)}")` : ''}` : 'build not recorded';
  const command = `npm run bench${report.mode === 'quick' ? ' -- --quick' : ''}${report.only ? ` --only ${report.only.join(',')}` : ''}`;
  const lines = [
    '# Performance',
    '',
    '<!-- Written by `npm run bench:doc` (bench/write-performance-doc.ts) from a bench results file.',
    '     Edit bench/doc/intro.md, bench/doc/bounds.md or the generator, not this page. -->',
    '',
  ];
  if (fixture) lines.push(`**Generated from the fixture results file \`${source}\`, not from a measured run: the figures below are illustrative.**`, '');
  lines.push(
    `Figures of \`${command}\` started ${report.startedAt.replace('T', ' ').slice(0, 16)} UTC, ${build}, ${formatNumber(minutes)} minutes; ` +
      `${checks} self-checks, ${failed === 0 ? 'all passed' : `${failed} FAILED`}. Source: \`${source}\`.` +
      loadNote(m) +
      (report.mode === 'quick' ? ' Quick rounds are short (1-3 s a turn): its verdicts are the first look, the full run\'s the standing.' : ''),
  );
  if (note) lines.push('', note);
  return lines;
}

function machine(report: DocReport): string[] {
  const m = report.machine;
  const fs = (m.stateFilesystem ?? {}) as { type?: string | null; device?: string | null; options?: string | null };
  return [
    '## Machine',
    '',
    `${String(m.nproc ?? '?')} cores (${String(m.cpuModel ?? 'unknown CPU')}), ${String(m.memTotalGiB ?? '?')} GiB memory, Node.js ${String(m.node ?? '?')}, ${String(m.platform ?? '')}; ` +
      `state folders on ${fs.type ?? '?'} (${fs.device ?? '?'}, ${fs.options ?? '?'}): on tmpfs an fdatasync would cost nothing and every durable figure would flatter. ` +
      'Redis and PostgreSQL run on the same machine; other work may run beside the bench.',
  ];
}

function goalsSummary(verdicts: readonly GoalVerdict[]): string[] {
  if (verdicts.length === 0) return ['## Goals', '', 'No goal was judged in this run (its results file has no verdicts).'];
  const count = (status: GoalVerdict['status']) => verdicts.filter((v) => v.status === status).length;
  const out = [
    '## Goals',
    '',
    `${count('met')} met, ${count('not met')} not met, ${count('void')} void (median of alternated rounds; "How a goal is judged" above).`,
    '',
    '| goal | median | spread | verdict |',
    '|---|---|---|---|',
  ];
  for (const v of verdicts) {
    const c = verdictCells(v);
    out.push(tableLine([c.goal, c.median, c.spread, c.verdict]));
  }
  return out;
}

/** Rows of a baseline's own figures: they show in the baseline column of the rows compared with it. */
function baselineOwnRows(rows: readonly Row[]): Set<Row> {
  const baselines = new Set(rows.flatMap((r) => (r.baseline ? [r.baseline.subject] : [])));
  return new Set(rows.filter((r) => !r.baseline && baselines.has(r.subject) && !r.note?.startsWith('skipped') && !r.note?.startsWith('error')));
}

function goalLine(v: GoalVerdict, comparison: Comparison): string[] {
  const c = verdictCells(v);
  return [
    comparison.subject,
    `${comparison.metric}, median of ${v.rounds} rounds`,
    '',
    comparison.baseline || 'absolute bound',
    c.median,
    c.spread,
    v.goal,
    v.status === 'void' ? `**VOID**: ${v.reasons.join('; ')}` : v.status === 'met' ? '**met**' : '**not met**',
    '',
  ];
}

function scenarioSection(s: DocReport['scenarios'][number], verdicts: readonly GoalVerdict[], maxRows: number): string[] {
  const out = [`### ${s.title} (\`${s.name}\`)`, ''];
  // A goal whose pair this run did not measure is listed in the goals' summary only.
  const own = verdicts.filter((v) => v.scenario === s.name && s.comparisons?.some((c) => c.id === v.comparison));
  const hidden = baselineOwnRows(s.rows);
  const checks = s.rows.filter((r) => r.metric.startsWith('check:'));
  const shown = s.rows.filter((r) => !r.metric.startsWith('check:') && !hidden.has(r));
  const lines = [tableLine(COLUMNS), `|${COLUMNS.map(() => '---').join('|')}|`];
  for (const v of own) lines.push(tableLine(goalLine(v, s.comparisons!.find((c) => c.id === v.comparison)!)));
  for (const row of shown.slice(0, maxRows)) {
    const c = rowCells(row);
    lines.push(tableLine([c.subject, c.metric, c.value, c.baseline, c.ratio, '', '', '', c.note]));
  }
  out.push(...lines);
  const more = shown.length - maxRows;
  const failed = checks.filter((r) => r.failed);
  const after = [
    more > 0 ? `${more} more rows in the results file.` : '',
    `Self-checks: ${checks.length - failed.length} of ${checks.length} passed${failed.length ? `; FAILED: ${failed.map((r) => `${r.subject}: ${r.metric.replace(/^check: /, '')} (${r.note ?? ''})`).join('; ')}` : ''}.`,
    s.error ? `The scenario ended with an error: ${s.error.split('\n')[0]}` : '',
  ].filter(Boolean);
  out.push('', after.join(' '));
  return out;
}

/** The whole page, with as many rows per scenario as keep it within MAX_LINES. */
export function renderPerformanceDoc(report: DocReport, parts: DocParts): string {
  let page = '';
  for (let rows = MAX_ROWS_PER_SCENARIO; rows >= MIN_ROWS_PER_SCENARIO; rows--) {
    page = renderWith(report, parts, rows);
    if (page.split('\n').length - 1 <= MAX_LINES) break;
  }
  return page;
}

function renderWith(report: DocReport, parts: DocParts, maxRows: number): string {
  const verdicts = report.verdicts ?? [];
  const sections = [
    header(report, parts.source, parts.note),
    [parts.intro.trim()],
    goalsSummary(verdicts),
    machine(report),
    ['## Scenarios', '', 'Each table: the goals of the scenario first (median ratio of its rounds, their spread, the verdict), then the rows of the run: each subject\'s best round, its baseline\'s figure and the ratio. Self-checks are summed up below each table.'],
    ...report.scenarios.map((s) => scenarioSection(s, verdicts, maxRows)),
    [parts.bounds.trim()],
  ];
  return `${sections.map((lines) => lines.join('\n')).join('\n\n')}\n`;
}
