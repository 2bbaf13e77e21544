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
}

export function handlerLog(dir: string, name = 'handler-executions.log'): HandlerLog {
  const path = join(dir, name);
  writeFileSync(path, '');
  return {
    env: { NODE_OPTIONS: `--import=${REGISTER}`, BENCH_HANDLER_LOG: path },
    counts: () => countLines(readFileSync(path, 'utf8')),
    forge: (runId) => appendFileSync(path, `${runId}\n`),
  };
}

export function countLines(text: string): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const line of text.split('\n')) if (line) counts[line] = (counts[line] ?? 0) + 1;
  return counts;
}
