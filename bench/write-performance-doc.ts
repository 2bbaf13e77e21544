/**
 * Writes docs/performance.md from a bench results file:
 * `npm run bench:doc [-- <results.json>] [--out <file>] [--note <line>]`. Without a path, the newest
 * bench-results/<timestamp>/results.json. The page is the latest run's figures and nothing else;
 * the hand-written parts come from bench/doc/.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { judgeGoals } from './lib/goals.js';
import { ROOT } from './lib/paths.js';
import type { ScenarioResult } from './lib/results.js';
import { MAX_LINES, renderPerformanceDoc, type DocReport } from './lib/performance-doc.js';

function newestResults(): string {
  const dir = join(ROOT, 'bench-results');
  const runs = existsSync(dir) ? readdirSync(dir).filter((d) => existsSync(join(dir, d, 'results.json'))).sort() : [];
  const last = runs.at(-1);
  if (!last) throw new Error('no bench-results/<timestamp>/results.json: run `npm run bench` first, or name a results file');
  return join(dir, last, 'results.json');
}

function parseArgs(argv: string[]): { input: string; out: string; note: string | undefined } {
  let input: string | null = null;
  let note: string | undefined;
  let out = join(ROOT, 'docs', 'performance.md');
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--out') out = resolve(argv[++i] ?? '');
    else if (arg.startsWith('--out=')) out = resolve(arg.slice('--out='.length));
    else if (arg === '--note') note = argv[++i];
    else if (arg.startsWith('-')) throw new Error(`unknown argument: ${arg}\nusage: npm run bench:doc -- [<results.json>] [--out <file>] [--note <a line for the header>]`);
    else input = resolve(arg);
  }
  return { input: input ?? newestResults(), out, note };
}

function main(): void {
  const { input, out, note } = parseArgs(process.argv.slice(2));
  const report = JSON.parse(readFileSync(input, 'utf8')) as DocReport;
  // The verdicts are judged again from the recorded rounds, so the page follows the rules of
  // bench/lib/verdict.ts as they are now (the rounds, not the verdicts, are the measurement).
  if (report.scenarios.every((s) => Array.isArray(s.comparisons))) report.verdicts = judgeGoals(report.scenarios as ScenarioResult[]);
  const source = relative(ROOT, input).startsWith('..') ? input : relative(ROOT, input);
  const page = renderPerformanceDoc(report, {
    intro: readFileSync(join(ROOT, 'bench', 'doc', 'intro.md'), 'utf8'),
    bounds: readFileSync(join(ROOT, 'bench', 'doc', 'bounds.md'), 'utf8'),
    source,
    note,
  });
  const lines = page.split('\n').length - 1;
  if (lines > MAX_LINES) throw new Error(`the page would be ${lines} lines, over its ${MAX_LINES}: shorten bench/doc/*.md or MAX_ROWS_PER_SCENARIO`);
  writeFileSync(out, page);
  console.log(`wrote ${relative(ROOT, out)} (${lines} lines) from ${source}`);
}

try {
  main();
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
