/**
 * The doc-sync handler's own execution log, for the exactly-once count: the bench preloads a
 * loader hook into the service (bench/lib/handler-log-hook.mjs) that makes the handler append
 * its run id to a file before it runs. Counting from the handler, not from the service's run
 * records, catches a run executed twice that the store recorded once.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './paths.js';

const REGISTER = join(ROOT, 'bench', 'lib', 'handler-log-register.mjs');

export interface HandlerLog {
  /** Env for the service process (merge into its launch env). */
  env: Record<string, string>;
  /** Executions per run id so far. */
  counts(): Record<string, number>;
  /** Appends an execution the handler did not make (BENCH_FAULT only: proves the count catches it). */
  forge(runId: string): void;
  /** Each ended execution's span (wall-clock ms), when asked for with `spans`; else none. */
  spans(): HandlerSpan[];
}

/** One execution of the handler, from its start to its end, as the handler itself saw it. */
export interface HandlerSpan {
  runId: string;
  startMs: number;
  endMs: number;
}

export interface HandlerLogOptions {
  /** Also log each execution's span (the caps rows count overlaps from it). */
  spans?: boolean;
  /** Each execution waits this long before the handler's own work (0: none). */
  delayMs?: number;
}

export function handlerLog(dir: string, name = 'handler-executions.log', options: HandlerLogOptions = {}): HandlerLog {
  const path = join(dir, name);
  writeFileSync(path, '');
  const env: Record<string, string> = { NODE_OPTIONS: `--import=${REGISTER}`, BENCH_HANDLER_LOG: path };
  const spansPath = options.spans ? `${path}.spans` : null;
  if (spansPath !== null) {
    writeFileSync(spansPath, '');
    env.BENCH_HANDLER_SPANS = spansPath;
  }
  if (options.delayMs) env.BENCH_HANDLER_DELAY_MS = String(options.delayMs);
  return {
    env,
    counts: () => countLines(readFileSync(path, 'utf8')),
    forge: (runId) => appendFileSync(path, `${runId}\n`),
    spans: () => (spansPath === null ? [] : parseSpans(readFileSync(spansPath, 'utf8'))),
  };
}

export function parseSpans(text: string): HandlerSpan[] {
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [runId = '', start = '', end = ''] = line.split(' ');
      return { runId, startMs: Number(start), endMs: Number(end) };
    });
}

/**
 * The most executions of one group that overlapped at any moment: a sweep over their starts and
 * ends, an end before a start at the same instant (one run ending as the next begins is not an overlap).
 */
export function maxOverlap(spans: readonly HandlerSpan[], groupOf: (runId: string) => string | undefined): Map<string, number> {
  const events = new Map<string, Array<[number, number]>>();
  for (const span of spans) {
    const group = groupOf(span.runId);
    if (group === undefined) continue;
    const list = events.get(group) ?? [];
    list.push([span.startMs, 1], [span.endMs, -1]);
    events.set(group, list);
  }
  const peaks = new Map<string, number>();
  for (const [group, list] of events) {
    list.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    let now = 0;
    let peak = 0;
    for (const [, delta] of list) peak = Math.max(peak, (now += delta));
    peaks.set(group, peak);
  }
  return peaks;
}

export function countLines(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) if (line) counts[line] = (counts[line] ?? 0) + 1;
  return counts;
}
