import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ratio, round } from './stats.js';
import type { OrderRule, PairedRound, Verdict } from './verdict.js';

/** One line of the results table: an absolute figure and, where there is one, its baseline. */
export interface Row {
  scenario: string;
  /** What was measured, e.g. `service (json)`, `bullmq`, `bare fastify`. */
  subject: string;
  metric: string;
  unit: string;
  value: number | null;
  /** Whether a larger value is better (req/s) or a smaller one (ms, MB). */
  better: 'higher' | 'lower' | 'none';
  baseline?: { subject: string; value: number | null };
  /** value / baseline.value. */
  ratio?: number | null;
  /**
   * Set when the subject or its baseline failed a check: the ratio compares against work that
   * was wrong, so it is withheld (null) and printed as failed instead of as a number.
   */
  ratioFailed?: boolean;
  /** What an acknowledgement of this subject survives (peer rows and the service say it). */
  durability?: string;
  /** Set when the bench found the subject's work wrong: the run exits non-zero. */
  failed?: boolean;
  note?: string;
}

/**
 * A compared pair measured in alternated rounds (A,B,A,B,A,B): the figures a goal is judged on
 * (bench/lib/goals.ts names it by `id`). Its rows show the best round; the verdict uses them all.
 */
export interface Comparison {
  /** Stable name a goal refers to, e.g. `admission/json/no-op`. */
  id: string;
  scenario: string;
  subject: string;
  /** The baseline's subject; empty for an absolute bound (each round's baseline is then 1). */
  baseline: string;
  metric: string;
  unit: string;
  better: 'higher' | 'lower';
  rounds: PairedRound[];
  /** Ceilings whose order the comparison rests on (no-op above durable, ...). */
  orders?: OrderRule[];
}

export type ComparisonInput = Omit<Comparison, 'scenario'>;

export interface ScenarioResult {
  name: string;
  title: string;
  rows: Row[];
  /** The alternated rounds of every compared pair. */
  comparisons: Comparison[];
  /** Raw figures behind the rows (autocannon summaries, samples, counts). */
  details: Record<string, unknown>;
  durationMs: number;
  error?: string;
}

export interface RowInput {
  subject: string;
  metric: string;
  unit: string;
  value: number | null;
  better?: Row['better'];
  baseline?: { subject: string; value: number | null };
  durability?: string;
  note?: string;
}

/** Collects the rows of one scenario and fills in ratios. */
export class RowSink {
  readonly rows: Row[] = [];
  readonly comparisons: Comparison[] = [];
  /** Subjects with a failed check so far: no ratio involving them is printed as a number. */
  private readonly failedSubjects = new Set<string>();
  constructor(private readonly scenario: string) {}

  add(input: RowInput): Row {
    const row: Row = {
      scenario: this.scenario,
      subject: input.subject,
      metric: input.metric,
      unit: input.unit,
      value: input.value === null || !Number.isFinite(input.value) ? null : round(input.value),
      better: input.better ?? 'none',
    };
    if (input.baseline) {
      row.baseline = {
        subject: input.baseline.subject,
        value:
          input.baseline.value === null || !Number.isFinite(input.baseline.value) ? null : round(input.baseline.value),
      };
      const r = ratio(input.value, input.baseline.value);
      row.ratio = r === null ? null : round(r);
    }
    if (input.durability) row.durability = input.durability;
    const notes = [input.note ?? ''];
    if (input.baseline && input.baseline.value === 0 && input.unit === 'ms') {
      notes.push('no ratio: baseline under the 1 ms latency resolution');
    }
    const note = notes.filter(Boolean).join('; ');
    if (note) row.note = note;
    this.rows.push(row);
    this.withholdRatio(row);
    return row;
  }

  private withholdRatio(row: Row): void {
    if (row.ratio === undefined) return;
    if (this.failedSubjects.has(row.subject) || (row.baseline && this.failedSubjects.has(row.baseline.subject))) {
      row.ratio = null;
      row.ratioFailed = true;
    }
  }

  /** Marks `subject` as failed: every ratio of or against it, before and after, prints as failed. */
  failSubject(subject: string): void {
    this.failedSubjects.add(subject);
    for (const row of this.rows) this.withholdRatio(row);
  }

  /**
   * A correctness check of the subject's own work (stored runs equal 202s, exactly once, every
   * key completed, every sample succeeded). A failed check is a row marked `failed`: the run
   * then exits non-zero, whatever the throughput figures say.
   */
  check(subject: string, what: string, ok: boolean, detail: string): boolean {
    const row = this.add({ subject, metric: `check: ${what}`, unit: '', value: null, note: `${ok ? 'ok' : 'FAIL'}: ${detail}` });
    if (!ok) {
      row.failed = true;
      this.failSubject(subject);
    }
    return ok;
  }

  /** Records a compared pair's rounds for the goals' verdicts (bench/lib/verdict.ts). */
  compare(input: ComparisonInput): Comparison {
    const comparison: Comparison = { scenario: this.scenario, ...input };
    this.comparisons.push(comparison);
    return comparison;
  }

  /** Subjects whose checks failed so far. */
  failed(): string[] {
    return [...this.failedSubjects];
  }

  /** A row that could not be measured (service not built, dependency down, ...). */
  skip(subject: string, metric: string, reason: string): Row {
    return this.add({ subject, metric, unit: '', value: null, note: `skipped: ${reason}` });
  }
}

export interface RunReport {
  startedAt: string;
  finishedAt: string;
  mode: 'quick' | 'full';
  only: string[] | null;
  outDir: string;
  machine: Record<string, unknown>;
  scenarios: ScenarioResult[];
  /** Every goal judged on the median of its rounds (bench/lib/goals.ts). */
  verdicts: GoalVerdict[];
}

/** A goal's verdict as written to results.json (and read back by the doc's generator). */
export interface GoalVerdict extends Verdict {
  id: string;
  scenario: string;
  goal: string;
  comparison: string;
  /** `x` for a ratio, else the unit of an absolute bound (`ms`). */
  unit: string;
}

/** Writes results.json, one JSON file per scenario, and the text and Markdown tables. */
export function writeReport(report: RunReport, textTable: string, markdownTable: string): string[] {
  mkdirSync(report.outDir, { recursive: true });
  const written: string[] = [];
  const put = (name: string, content: string) => {
    const path = join(report.outDir, name);
    writeFileSync(path, content);
    written.push(path);
  };
  put('results.json', `${JSON.stringify(report, null, 2)}\n`);
  for (const scenario of report.scenarios) {
    put(`${scenario.name}.json`, `${JSON.stringify(scenario, null, 2)}\n`);
  }
  put('table.txt', `${textTable}\n`);
  put('table.md', `${markdownTable}\n`);
  return written;
}
